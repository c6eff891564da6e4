"""Engine events as ACP session updates: the one translation from the bus to an editor.

Every tool-call snapshot becomes a ``tool_call`` the first time its id is seen and a
``tool_call_update`` after that; the engine's states fold into ACP's four statuses.
Answer and thought deltas become message chunks, ``write_todos`` a plan, each model call
a usage update, and an error a plain agent message (the client shows it in the thread).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from acp import (
    plan_entry,
    start_tool_call,
    tool_content,
    tool_diff_content,
    tool_terminal_ref,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    Cost,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)

from gemtui.bus import (
    ContentDelta,
    ErrorOccurred,
    Event,
    LoopDetected,
    ThoughtDelta,
    TodosUpdated,
    ToolCallSnapshot,
    ToolCallState,
    ToolCallStateChanged,
    ToolOutput,
    TurnFinished,
    Usage,
)

__all__ = ["Update", "UpdateMapper", "tool_kind", "tool_status"]

Update = (
    AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | UsageUpdate
)

Status = Literal["pending", "in_progress", "completed", "failed"]
Kind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]

_STATUS: dict[ToolCallState, Status] = {
    ToolCallState.VALIDATING: "pending",
    ToolCallState.AWAITING_APPROVAL: "pending",
    ToolCallState.SCHEDULED: "pending",
    ToolCallState.EXECUTING: "in_progress",
    ToolCallState.SUCCESS: "completed",
    ToolCallState.ERROR: "failed",
    ToolCallState.CANCELLED: "failed",
}
_KINDS: frozenset[str] = frozenset(
    {"read", "edit", "delete", "move", "search", "execute", "think", "fetch"}
)
_PATH_ARGS = ("file_path", "dir_path", "path", "absolute_path")
_PLAN_STATUS: dict[str, Literal["pending", "in_progress", "completed"]] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
    "cancelled": "completed",
    "blocked": "pending",
}


_LIVE_TAIL = 16_000
"""How much of a running command's output each live update carries (its end)."""


def tool_status(state: ToolCallState) -> Status:
    return _STATUS[state]


def tool_kind(kind: str) -> Kind:
    return kind if kind in _KINDS else "other"  # type: ignore[return-value]


def locations(args: dict[str, Any], root: Path) -> list[ToolCallLocation]:
    """Where a call acts, as absolute paths the editor can open (follow-along): only
    inside the workspace, as the model's arguments may name ``~/.ssh/id_rsa`` (the tool
    refuses it, but an editor that follows along would open it)."""
    real_root = Path(os.path.realpath(root))
    out = []
    for key in _PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            path = Path(value)
            full = path if path.is_absolute() else root / path
            if Path(os.path.realpath(full)).is_relative_to(real_root):
                out.append(ToolCallLocation(path=str(full)))
    return out


def call_content(call: ToolCallSnapshot, terminal: str | None = None) -> list[Any]:
    """What the editor shows inside the call: its terminal, a diff for an edit, else
    its text."""
    if terminal is not None:
        return [tool_terminal_ref(terminal)]
    conf = call.confirmation
    failed = call.state in (ToolCallState.ERROR, ToolCallState.CANCELLED)
    if (
        conf is not None
        and conf.kind == "edit"
        and conf.file_path
        and conf.proposed is not None
        and not failed
    ):
        return [tool_diff_content(conf.file_path, conf.proposed, conf.original or None)]
    text = call.error if failed else None
    text = text or call.output
    if not text:
        return []
    return [tool_content(TextContentBlock(type="text", text=text))]


class UpdateMapper:
    """Turns one session's events into ACP updates; remembers which calls were announced."""

    def __init__(self, root: Path, context_window: int) -> None:
        self.root = root
        self.context_window = context_window
        self._announced: set[str] = set()
        self._outputs: dict[str, str] = {}
        self.terminals: dict[str, str] = {}
        """The editor terminal each shell call runs in, by call id."""
        self._subject: str | None = None
        self._cost = 0.0
        self._priced = False
        self._used = 0
        """The conversation's context used after its latest model call."""
        self.total = Usage()
        """Every model call's tokens in this session (``/stats``)."""

    def map(self, event: Event) -> list[Update]:
        if event.parent_id and isinstance(event, ContentDelta | ThoughtDelta):
            return []  # a subagent's text is not the agent's message; its calls are shown
        if isinstance(event, ContentDelta):
            return [update_agent_message_text(event.text)] if event.text else []
        if isinstance(event, ThoughtDelta):
            return self._thought(event)
        if isinstance(event, ToolCallStateChanged):
            return [self.tool_call(event.call, event.parent_id)]
        if isinstance(event, ToolOutput):
            return self._live_output(event)
        if isinstance(event, TodosUpdated):
            return [self.plan(event.todos)]
        if isinstance(event, TurnFinished):
            return [self.usage(event)]
        if isinstance(event, ErrorOccurred | LoopDetected):
            hint = getattr(event, "hint", None)
            text = event.message + (f"\n\n{hint}" if hint else "")
            return [update_agent_message_text(f"\n\n**{_label(event)}:** {text}\n")]
        return []

    def _live_output(self, event: ToolOutput) -> list[Update]:
        """A running command's output so far (its tail), for editors without terminals."""
        if event.call_id in self.terminals:  # the editor's terminal shows it already
            return []
        text = self._outputs.get(event.call_id, "") + event.text
        text = text[-_LIVE_TAIL:]
        self._outputs[event.call_id] = text
        block = tool_content(TextContentBlock(type="text", text=text))
        return [update_tool_call(event.call_id, content=[block])]

    def _thought(self, event: ThoughtDelta) -> list[Update]:
        text = event.text
        if event.subject and event.subject != self._subject:
            self._subject = event.subject
            text = f"**{event.subject}**\n\n{text}"
        return [update_agent_thought_text(text)] if text else []

    def tool_call(
        self, call: ToolCallSnapshot, parent_id: str = ""
    ) -> ToolCallStart | ToolCallProgress:
        """The call's first snapshot announces it; later ones update it. A subagent's
        call says in ``_meta`` which call started its agent (``parentToolCallId``)."""
        update = self._tool_call(call)
        if parent_id:
            meta = {"gemtui": {"parentToolCallId": parent_id}}
            update = update.model_copy(update={"field_meta": meta})
        return update

    def _tool_call(self, call: ToolCallSnapshot) -> ToolCallStart | ToolCallProgress:
        status = tool_status(call.state)
        content = call_content(call, self.terminals.get(call.call_id))
        raw_output = None
        if call.state.terminal:
            raw_output = {"output": call.output, "error": call.error}
            self._outputs.pop(call.call_id, None)
        if call.call_id not in self._announced:
            self._announced.add(call.call_id)
            return start_tool_call(
                call.call_id,
                call.description or call.name,
                kind=tool_kind(call.kind),
                status=status,
                content=content or None,
                locations=locations(call.args, self.root),
                raw_input=call.args,
                raw_output=raw_output,
            )
        return update_tool_call(
            call.call_id,
            title=call.description or None,
            status=status,
            content=content or None,
            raw_output=raw_output,
        )

    def plan(self, todos: tuple[dict[str, str], ...]) -> AgentPlanUpdate:
        return update_plan(
            plan_entry(
                t.get("description", ""), status=_PLAN_STATUS.get(t.get("status", ""), "pending")
            )
            for t in todos
        )

    def usage(self, event: TurnFinished) -> UsageUpdate:
        """The context used after this call, out of the window, and the cost so far."""
        self.total = self.total + event.usage
        if event.cost is not None:
            self._cost += event.cost
            self._priced = True
        used = event.usage.total or (event.usage.input + event.usage.output)
        if event.parent_id:  # a subagent's call costs, but fills its own context, not this one
            used = self._used
        self._used = used
        return UsageUpdate(
            session_update="usage_update",
            used=max(0, used),
            size=max(0, self.context_window),
            cost=Cost(amount=self._cost, currency="USD") if self._priced else None,
        )


def _label(event: Event) -> str:
    if isinstance(event, LoopDetected):
        return "Stopped"
    assert isinstance(event, ErrorOccurred)
    return "Warning" if event.kind == "warning" else "Error"


def stats_text(mapper: UpdateMapper, model: str) -> str:
    """``/stats`` in an editor: the session's tokens and cost so far."""
    t = mapper.total
    cost = f"${mapper._cost:.4f}" if mapper._priced else "unknown (no price for this model)"
    return (
        f"Model: {model}\n\nTokens: {t.input} in, {t.output} out"
        f" ({t.thoughts} thinking, {t.cached} cached), {t.total} total\n\nCost: {cost}"
    )
