"""What the scheduler asks of hooks before a call is offered for approval.

A ``BeforeTool`` hook may refuse a call (its reason goes to the model as the call's error)
or rewrite its arguments. It runs before policy and approval, so the rule that decides
and the preview a person approves are those of the call that will really run.
An ``AfterTool`` hook may hide a result from the model or add context to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["AfterToolVerdict", "ToolHookVerdict", "ToolHooks"]


@dataclass(frozen=True)
class ToolHookVerdict:
    """The hooks' combined answer for one call."""

    blocked: bool = False
    reason: str = ""
    tool_input: dict[str, Any] | None = None
    """Arguments that merge over (and override) the model's."""


@dataclass(frozen=True)
class AfterToolVerdict:
    """What ``AfterTool`` hooks make of a result: replace it, or add to it."""

    replace: str | None = None
    """Text the model gets instead of the output (a deny's reason, or ``tool_output``)."""
    append: str = ""
    """``additionalContext`` added after the output."""


class ToolHooks(Protocol):
    """The hook runner, seen from the scheduler."""

    async def before_tool(
        self, call_id: str, name: str, args: dict[str, Any]
    ) -> ToolHookVerdict: ...

    async def after_tool(
        self, call_id: str, name: str, args: dict[str, Any], output: str, error: str | None
    ) -> AfterToolVerdict: ...
