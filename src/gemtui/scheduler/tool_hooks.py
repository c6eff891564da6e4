"""What the scheduler asks of hooks before a call is offered for approval.

A ``BeforeTool`` hook may refuse a call (its reason goes to the model as the call's error)
or rewrite its arguments. It runs before policy and approval, so the rule that decides
and the preview a person approves are those of the call that will really run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["ToolHookVerdict", "ToolHooks"]


@dataclass(frozen=True)
class ToolHookVerdict:
    """The hooks' combined answer for one call."""

    blocked: bool = False
    reason: str = ""
    tool_input: dict[str, Any] | None = None
    """Arguments that merge over (and override) the model's."""


class ToolHooks(Protocol):
    """The hook runner, seen from the scheduler."""

    async def before_tool(
        self, call_id: str, name: str, args: dict[str, Any]
    ) -> ToolHookVerdict: ...
