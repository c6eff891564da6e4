"""ToolError, below every tool module: the workspace's path checks raise it too."""

from __future__ import annotations

__all__ = ["ToolError"]


class ToolError(Exception):
    """A tool refused or failed; the message goes back to the model as the error text."""
