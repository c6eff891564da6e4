"""Language servers as a tool source: diagnostics after edits, and navigation tools."""
