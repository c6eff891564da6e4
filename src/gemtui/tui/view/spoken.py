"""The screen-reader mode's words: each view operation as plain lines, in order.

A screen reader reads what is added at the end of a plain log; boxes, spinners and panes
that redraw in place are noise to it. ``SpokenLines.lines`` turns the same view
operations the main screen draws (``ops``) into one plain line per event — the prompt
sent, the answer once it is complete, a tool call's state when it changes, an approval
asked (naming the keys that answer it) and decided, errors, notices — so the mode adds
no second engine path. Plain Python: unit tests read it without a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemtui.redact import redact
from gemtui.tui.view import ops
from gemtui.tui.view.approval_keys import spoken_keys

if TYPE_CHECKING:
    from gemtui.bus.events import BudgetAsked, ToolCallSnapshot

__all__ = [
    "DECISION_WORDS",
    "FALLBACK_KEYS",
    "GREETING",
    "SpokenLines",
    "budget_question",
]

GREETING = (
    "gemtui, screen-reader mode. Type a prompt and press Enter. "
    "F1 help, Escape cancels a turn, Control C twice quits."
)
"""The first line: what the person can do, by keys."""

FALLBACK_KEYS = "To answer press F8, then s switch, x or Escape stop."
"""The fallback dialog's keys (``FallbackScreen``), said with its question."""


def budget_question(asked: BudgetAsked) -> str:
    """The budget dialog's question and its keys (``BudgetScreen``), as one line."""
    if asked.kind == "unpriced":
        keys = "g go on without a price for this session, s or Escape stop"
    else:
        keys = (
            "1 raise the cap by 1 dollar, 5 raise it by 5 dollars, "
            "r raise it by an amount you type, s or Escape stop"
        )
    return f"Question: {_flat(asked.message)} To answer press F8, then {keys}."


DECISION_WORDS = {
    "allow_once": "allowed once",
    "allow_session": "allowed for this session",
    "allow_always": "allowed always",
    "allow_server": "this server allowed always",
    "reject": "rejected",
    "reject_with_feedback": "rejected with feedback",
    "modify": "allowed as modified",
}
"""What the person chose, as the log says it."""

_STATE_WORDS = {
    "executing": "running",
    "success": "done",
    "error": "failed",
    "cancelled": "cancelled",
}

_PREFIX = {"information": "Note", "warning": "Warning", "error": "Error"}


def _call_title(call: ToolCallSnapshot) -> str:
    """The call in words: its tool and what it does (the command, the file)."""
    conf = call.confirmation
    what = (conf.command if conf is not None and conf.command else None) or call.description
    return f"{call.name}: {what}" if what and what != call.name else call.name


def _change_size(call: ToolCallSnapshot) -> str:
    """An edit's size in words ("edit a.py: +3 −1 lines."), said with its approval: the
    diff itself is a box the log does not draw."""
    import difflib

    conf = call.confirmation
    if conf is None or conf.kind != "edit":
        return ""
    old, new = (conf.original or "").splitlines(), (conf.proposed or "").splitlines()
    diff = conf.diff.splitlines() if conf.diff else list(difflib.unified_diff(old, new))
    added = sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff if line.startswith("-") and not line.startswith("---"))
    path = call.args.get("file_path") or conf.file_path or "a file"  # as the call named it
    return f" edit {path}: +{added} −{removed} lines."


def _flat(text: str) -> str:
    """One line: a line break read aloud mid-sentence is only a pause."""
    return " ".join(text.split())


class SpokenLines:
    """What the log adds for each view operation; keeps only the answer being streamed
    and each call's last said state (a state is said once, not at every snapshot)."""

    def __init__(self) -> None:
        self._answer: list[str] = []
        self._said: dict[str, str] = {}

    def lines(self, op: ops.Op) -> list[str]:
        """The lines ``op`` adds, possibly none (usage counts, status fields); known
        secrets masked as the transcript masks them (a command, an error, a title)."""
        return [redact(line) for line in self._lines(op)]

    def _lines(self, op: ops.Op) -> list[str]:
        if isinstance(op, ops.UserPromptShown):
            return [f"You: {_flat(op.text)}"]
        if isinstance(op, ops.AnswerText):
            self._answer.append(op.text)
            return []
        if isinstance(op, ops.AnswerDiscarded):
            self._answer.clear()
            return []
        if isinstance(op, ops.AnswerClosed):
            return self._answer_lines()
        if isinstance(op, ops.ThoughtMarker):
            return [f"Thinking: {op.subject}" if op.subject else "Thinking."]
        if isinstance(op, ops.ToolCallShown):
            return self._tool_lines(op.call, op.parent_id)
        if isinstance(op, ops.Notice):
            return [f"{_PREFIX.get(op.severity, 'Note')}: {_flat(op.text)}"]
        if isinstance(op, ops.BudgetQuestion):
            return [budget_question(op.asked)]
        if isinstance(op, ops.PromptCancelled):
            return ["Prompt cancelled."]
        if isinstance(op, ops.TurnEnded):
            return ["Done. Type your next prompt."]
        return []

    def _answer_lines(self) -> list[str]:
        """The whole answer, once complete: its lines as written, the first one said to
        be the answer (a half-streamed sentence would be read twice)."""
        text, self._answer = "".join(self._answer).strip(), []
        if not text:
            return []
        first, *rest = [line.rstrip() for line in text.splitlines() if line.strip()]
        return [f"Answer: {first}", *rest]

    def _tool_lines(self, call: ToolCallSnapshot, parent_id: str) -> list[str]:
        state = call.state.value
        if self._said.get(call.call_id) == state or state in ("validating", "scheduled"):
            return []  # said once; the steps before it runs or asks are not news
        asked = self._said.get(call.call_id) == "awaiting_approval"
        self._said[call.call_id] = state
        whose = "Subagent tool" if parent_id else "Tool"
        title = _call_title(call)
        if state == "awaiting_approval":
            return [f"Approval asked: {title}.{_change_size(call)} {spoken_keys(call)}"]
        out: list[str] = []
        if asked and call.decision is not None:  # the answer, said back as it took effect
            out.append(f"You {DECISION_WORDS.get(call.decision.value, call.decision)}: {title}.")
        line = f"{whose} {title}: {_STATE_WORDS.get(state, state)}."
        if state == "error" and call.error:
            line += f" {_flat(call.error)}"
        return [*out, line]
