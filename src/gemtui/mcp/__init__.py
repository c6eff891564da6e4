"""MCP servers as a tool source: the manager starts them, their tools join a registry."""
