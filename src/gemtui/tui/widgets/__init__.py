"""The panes of the main screen; import each from its module (kept lazy)."""
