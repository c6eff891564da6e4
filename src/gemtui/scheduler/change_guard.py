"""The hook the scheduler calls around a call that may change the workspace (the
session's checkpoints implement it), and which calls those are."""

from __future__ import annotations

from typing import Any, Protocol

from gemtui.tools.base import Tool, ToolKind

__all__ = ["ChangeGuard", "may_change_workspace"]

_READ_ONLY_KINDS = frozenset({ToolKind.READ, ToolKind.SEARCH, ToolKind.THINK, ToolKind.FETCH})


class ChangeGuard(Protocol):
    """Called around a call that may change the workspace (the session's checkpoints):
    ``before`` returns a token handed to ``after`` once the call has ended."""

    async def before(self, tool: Tool, invocation: Any) -> object | None: ...

    async def after(self, token: object) -> None: ...


def may_change_workspace(tool: Tool) -> bool:
    """A mutating built-in, or an MCP tool not marked read-only (we cannot know)."""
    return tool.mutating or (tool.server is not None and tool.kind not in _READ_ONLY_KINDS)
