"""What the scheduler asks of hooks before a call is offered for approval.

A ``BeforeTool`` hook may refuse a call (its reason goes to the model as the call's error)
or rewrite its arguments. It runs before policy and approval, so the rule that decides
and the preview a person approves are those of the call that will really run.
An ``AfterTool`` hook may hide a result from the model or add context to it.
"""

from __future__ import annotations

from typing import Any, Protocol

from msgspec import Struct
from msgspec.structs import replace

from gemtui.bus.events import Refusal, ToolCallState
from gemtui.scheduler.execution import ExecutionOutcome
from gemtui.scheduler.state_manager import StateManager
from gemtui.scheduler.states import CallRecord
from gemtui.tools.base import ToolError
from gemtui.wire import Part

__all__ = [
    "AfterToolVerdict",
    "ToolHookVerdict",
    "ToolHooks",
    "run_after_tool",
    "run_before_tool",
]


class ToolHookVerdict(Struct, frozen=True):
    """The hooks' combined answer for one call."""

    blocked: bool = False
    ask: bool = False
    """Ask the person even if policy allows the call (``"decision": "ask"``)."""
    reason: str = ""
    tool_input: dict[str, Any] | None = None
    """Arguments that merge over (and override) the model's."""


class AfterToolVerdict(Struct, frozen=True):
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


async def run_before_tool(state: StateManager, record: CallRecord, hooks: ToolHooks) -> str | None:
    """A hook refuses the call (its reason is the model's error) or rewrites it; returns
    why the person must be asked when a hook said ``ask``."""
    assert record.tool is not None
    assert record.invocation is not None
    args = dict(record.invocation.args)
    verdict = await hooks.before_tool(record.call_id, record.name, args)
    if verdict.blocked:
        state.transition(
            record.call_id,
            ToolCallState.ERROR,
            error=verdict.reason or "Blocked by a BeforeTool hook.",
            refusal=Refusal.DENIED,
        )
        return None
    ask = (verdict.reason or "A BeforeTool hook asks for approval.") if verdict.ask else None
    if not verdict.tool_input:
        return ask
    merged = {**args, **verdict.tool_input}
    try:
        problem = record.tool.validate(merged)
        if problem is None:
            record.invocation = record.tool.build(merged)
            record.request.args = merged
    except ToolError as e:
        problem = str(e)
    if problem is not None:
        state.transition(
            record.call_id,
            ToolCallState.ERROR,
            error=f"A BeforeTool hook rewrote the arguments into invalid ones: {problem}",
            refusal=Refusal.INVALID,
        )
    return ask


async def run_after_tool(
    record: CallRecord, outcome: ExecutionOutcome, hooks: ToolHooks
) -> ExecutionOutcome:
    """AfterTool hooks: the model gets their replacement, or the output plus context."""
    assert record.invocation is not None
    assert outcome.result is not None
    result = outcome.result
    content = result.llm_content
    text = content if isinstance(content, str) else "\n".join(p.text for p in content if p.text)
    verdict = await hooks.after_tool(
        record.call_id, record.name, dict(record.invocation.args), text, outcome.error
    )
    if verdict.replace is None and not verdict.append:
        return outcome
    new: str | list[Part]
    if verdict.replace is not None:
        new = verdict.replace + (f"\n\n{verdict.append}" if verdict.append else "")
    elif isinstance(content, str):
        new = f"{content}\n\n{verdict.append}"
    else:
        new = [*content, Part(text=verdict.append)]
    error = outcome.error
    if error is not None:
        error = new if isinstance(new, str) else f"{error}\n\n{verdict.append}"
    return ExecutionOutcome(replace(result, llm_content=new, error=error), error)
