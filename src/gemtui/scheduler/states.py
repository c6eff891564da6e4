"""The record of one tool call and the transitions its state may take.

The state enum lives in ``bus.events`` (views need it); this module owns the rules. A
``CallRecord`` is mutable, but only the state manager writes to it: everything else
reads the frozen ``ToolCallSnapshot`` it publishes, so a view can never see (or make) a
half-updated call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

from gemtui.bus.events import ApprovalDecision, Refusal, ToolCallSnapshot, ToolCallState
from gemtui.wire import FunctionCall

if TYPE_CHECKING:
    from gemtui.tools.base import Confirmation, Tool, ToolInvocation, ToolResult

__all__ = ["TRANSITIONS", "CallRecord", "InvalidTransitionError", "check_transition"]

S = ToolCallState

TRANSITIONS: dict[ToolCallState, frozenset[ToolCallState]] = {
    S.VALIDATING: frozenset({S.AWAITING_APPROVAL, S.SCHEDULED, S.ERROR, S.CANCELLED}),
    S.AWAITING_APPROVAL: frozenset({S.SCHEDULED, S.ERROR, S.CANCELLED}),
    S.SCHEDULED: frozenset({S.EXECUTING, S.CANCELLED}),
    S.EXECUTING: frozenset({S.SUCCESS, S.ERROR, S.CANCELLED}),
    S.SUCCESS: frozenset(),
    S.ERROR: frozenset(),
    S.CANCELLED: frozenset(),
}
"""Where each state may go next; terminal states go nowhere."""


class InvalidTransitionError(RuntimeError):
    """A scheduler bug: a call was moved along an edge the state machine does not have."""


def check_transition(old: ToolCallState, new: ToolCallState) -> None:
    """Raise unless ``old → new`` is an edge of the state machine."""
    if new not in TRANSITIONS[old]:
        raise InvalidTransitionError(f"tool call cannot go from {old.value} to {new.value}")


class CallRecord(Struct):
    """Everything the scheduler knows about one call. Written only by the state manager."""

    request: FunctionCall
    """The model's call; its ``id`` is always set (generated when the model gave none)."""
    tool: Tool | None = None
    invocation: ToolInvocation | None = None
    state: ToolCallState = ToolCallState.VALIDATING
    correlation_id: str | None = None
    confirmation: Confirmation | None = None
    decision: ApprovalDecision | None = None
    result: ToolResult | None = None
    error: str | None = None
    refusal: Refusal | None = None
    approval_reason: str | None = None
    repair: str | None = None
    """How the model's arguments were repaired before validation passed, if they were."""
    started_at: float | None = None
    ended_at: float | None = None

    @property
    def call_id(self) -> str:
        assert self.request.id is not None
        return self.request.id

    @property
    def name(self) -> str:
        return self.tool.name if self.tool is not None else self.request.name

    def to_snapshot(self) -> ToolCallSnapshot:
        """A frozen copy for views; args are copied so later edits cannot leak in."""
        args = self.invocation.effective_args if self.invocation is not None else self.request.args
        duration = None
        if self.started_at is not None and self.ended_at is not None:
            duration = (self.ended_at - self.started_at) * 1000
        output = None
        if self.result is not None:
            content = self.result.llm_content
            output = self.result.display or (content if isinstance(content, str) else None)
        return ToolCallSnapshot(
            call_id=self.call_id,
            name=self.name,
            args=dict(args or {}),
            state=self.state,
            description=self.invocation.describe() if self.invocation is not None else "",
            kind=self.tool.kind.value if self.tool is not None else "other",
            correlation_id=self.correlation_id,
            confirmation=self.confirmation,
            decision=self.decision,
            output=output,
            error=self.error,
            duration_ms=duration,
            refusal=self.refusal,
            approval_reason=self.approval_reason,
            repair=self.repair,
            output_file=_output_file(self.result),
            exit_code=_exit_code(self.result),
        )


def _exit_code(result: ToolResult | None) -> int | None:
    """A command's exit status (``data["exit_code"]`` of the shell tool), if it has one."""
    code = result.data.get("exit_code") if result is not None else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _output_file(result: ToolResult | None) -> str | None:
    """Where a result's whole output was saved (``output_fit.OUTPUT_FILE``), if it was."""
    path = result.data.get("output_file") if result is not None else None
    return path if isinstance(path, str) else None
