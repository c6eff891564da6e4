"""A saved tool call as a card: the same state, output, diff and duration the live card
showed, from the store's record of the call (the history alone says only "it answered
with an error", which would make a rejected or cancelled call read "failed")."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from gemtui.bus.events import ApprovalDecision, Refusal, ToolCallSnapshot, ToolCallState
from gemtui.wire import Content, FunctionCall

__all__ = ["replay_history", "replayed_call", "shell_cards", "subagent_calls", "subagent_words"]

_SHELL_IDS = itertools.count(1)


def shell_cards(content: Content, show: Callable[[ToolCallSnapshot], object]) -> str:
    """A saved prompt's typed text; each ``!`` line it carried goes to ``show`` as the
    card the live run had (not as raw text with its fences in the prompt)."""
    from gemtui.agent.shell_notes import read_note
    from gemtui.wire.attachments import ATTACHED_MARK

    typed: list[str] = []
    for part in content.parts:
        if part.text == ATTACHED_MARK:
            break  # attached files are for the model, not shown
        if not part.text or part.thought:
            continue
        note = read_note(part.text)
        if note is None:
            typed.append(part.text)
            continue
        line, output, code = note
        show(
            ToolCallSnapshot(
                call_id=f"!{next(_SHELL_IDS)}",
                name="run_shell_command",
                args={"command": line, "description": "shell mode (!)"},
                state=ToolCallState.SUCCESS,
                kind="execute",
                output=output,
                exit_code=code,
            )
        )
    return "".join(typed)


def _enum(kind: Any, value: Any) -> Any:
    try:
        return kind(value) if value is not None else None
    except ValueError:  # a record written by a newer gemtui: leave it out
        return None


_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)$", re.MULTILINE)


def _exit_code(call: FunctionCall, response: Mapping[str, Any]) -> int | None:
    """A shell command's exit status, from the report the model read (its last
    ``Exit Code:`` line: the command's own output comes before it)."""
    if call.name != "run_shell_command":
        return None
    found = _EXIT_CODE.findall(str(response.get("output", "")))
    return int(found[-1]) if found else None


def replayed_call(
    call: FunctionCall,
    description: str,
    response: Mapping[str, Any],
    stored: Mapping[str, Any] | None,
) -> ToolCallSnapshot:
    """The card of ``call`` answered with ``response``; ``stored`` (the store's record of
    the call, when there is one) gives it the live card's state, output and duration."""
    failed = "error" in response
    snapshot = ToolCallSnapshot(
        call_id=call.id or call.name,
        name=call.name,
        args=dict(call.args),
        description=description,
        state=ToolCallState.ERROR if failed else ToolCallState.SUCCESS,
        output=None if failed else str(response.get("output", "")),
        error=str(response.get("error")) if failed else None,
        exit_code=_exit_code(call, response),
    )
    state = _enum(ToolCallState, (stored or {}).get("state"))
    if stored is None or state is None or not state.terminal:
        return snapshot
    return ToolCallSnapshot(
        call_id=snapshot.call_id,
        name=snapshot.name,
        args=snapshot.args,
        description=description,
        state=state,
        decision=_enum(ApprovalDecision, stored.get("decision")),
        output=stored.get("output") if stored.get("output") is not None else snapshot.output,
        error=stored.get("error") if stored.get("error") is not None else snapshot.error,
        duration_ms=stored.get("duration_ms"),
        refusal=_enum(Refusal, stored.get("refusal")),
        exit_code=snapshot.exit_code,
    )


def subagent_calls(
    parent_id: str, calls: Mapping[str, Mapping[str, Any]], known: set[str]
) -> list[tuple[ToolCallSnapshot, str]]:
    """The stored calls a subagent made under the call ``parent_id`` (ids ``PARENT/ID``,
    nested ones deeper), each with the id of the call that started its agent: the agent's
    cards come back on resume. Ids the conversation itself used are never taken for one."""
    if not parent_id:
        return []
    prefix = f"{parent_id}/"
    found = [k for k in calls if k.startswith(prefix) and k not in known]
    found.sort(key=lambda k: k.count("/"))  # an agent's card before its own agent's calls
    out: list[tuple[ToolCallSnapshot, str]] = []
    for call_id in found:
        record = calls[call_id]
        state = _enum(ToolCallState, record.get("state"))
        if state is None or not state.terminal:
            continue
        args = record.get("args")
        snapshot = ToolCallSnapshot(
            call_id=call_id,
            name=str(record.get("name", "")),
            args=dict(args) if isinstance(args, dict) else {},
            state=state,
            decision=_enum(ApprovalDecision, record.get("decision")),
            output=record.get("output"),
            error=record.get("error"),
            duration_ms=record.get("duration_ms"),
            refusal=_enum(Refusal, record.get("refusal")),
        )
        out.append((snapshot, call_id.rsplit("/", 1)[0]))
    return out


def subagent_words(content: Content) -> str:
    """What a subagent said in one stored answer (its text; thoughts stay out, as they
    stayed off its live card)."""
    return "".join(p.text for p in content.parts if p.text and not p.thought).strip()


class _Drawing(Protocol):
    """What a replay draws with (the transcript's public methods)."""

    def upsert_tool(self, snapshot: ToolCallSnapshot, parent_id: str = "") -> None: ...
    def mark_cancelled(self) -> None: ...
    def add_user(self, text: str) -> None: ...
    def begin_answer(self) -> None: ...
    def append_answer(self, text: str) -> None: ...
    def end_answer(self) -> None: ...


def replay_history(
    transcript: _Drawing,
    history: list[Content],
    describe: Callable[[str, dict[str, Any]], str] | None,
    calls: Mapping[str, Mapping[str, Any]] | None,
) -> None:
    """Draw a saved conversation in ``transcript`` as it was drawn live: prompts,
    answers, and each tool call as the card it had (see ``Transcript.replay``)."""
    from gemtui.wire.cancel_note import is_cancel_note

    responses = {
        p.function_response.id: p.function_response
        for c in history
        for p in c.parts
        if p.function_response is not None
    }
    known = {k for k in responses if k}
    for content in history:
        if content.role == "user":
            text = shell_cards(content, transcript.upsert_tool)  # `!` lines: cards, as live
            if is_cancel_note(content):  # the prompt before it was cancelled
                transcript.mark_cancelled()
            elif text:
                transcript.add_user(text)
            continue
        answer = "".join(p.text or "" for p in content.parts if p.text and not p.thought)
        if answer:
            transcript.begin_answer()
            transcript.append_answer(answer)
            transcript.end_answer()
        for part in content.parts:
            call = part.function_call
            if call is None:
                continue
            resp = responses.get(call.id)
            body = resp.response if resp is not None else {}
            described = describe(call.name, dict(call.args)) if describe else ""
            stored = (calls or {}).get(call.id or "")
            transcript.upsert_tool(replayed_call(call, described, body, stored))
            for child, parent in subagent_calls(call.id or "", calls or {}, known):
                transcript.upsert_tool(child, parent)  # its agent's calls, under it
