"""The screen-reader mode's words (``view.spoken``): what each view operation says, read
as plain values without a terminal."""

from __future__ import annotations

from dataclasses import replace

from gemtui.bus.events import ToolCallSnapshot
from gemtui.bus.values import ApprovalDecision, ToolCallState
from gemtui.tui.view import ops
from gemtui.tui.view.spoken import APPROVAL_KEYS, SpokenLines


def _call(state: ToolCallState, **kw: object) -> ops.ToolCallShown:
    call = ToolCallSnapshot(
        call_id="c1", name="read_file", args={}, state=state, description="read a.txt"
    )
    return ops.ToolCallShown(replace(call, **kw), "", "p1")  # type: ignore[arg-type]


def _say(words: SpokenLines, *items: ops.Op) -> list[str]:
    return [line for op in items for line in words.lines(op)]


def test_the_answer_is_said_once_whole_never_half() -> None:
    words = SpokenLines()
    said = _say(words, ops.AnswerOpened(), ops.AnswerText("Hel"), ops.AnswerText("lo.\n\nBye."))
    assert said == []
    assert _say(words, ops.AnswerClosed()) == ["Answer: Hello.", "Bye."]
    assert _say(words, ops.AnswerClosed()) == []


def test_a_discarded_stream_is_not_said() -> None:
    words = SpokenLines()
    _say(words, ops.AnswerText("half a senten"), ops.AnswerDiscarded())
    assert _say(words, ops.AnswerText("Whole."), ops.AnswerClosed()) == ["Answer: Whole."]


def test_each_state_of_a_call_is_said_once_and_the_answer_said_back() -> None:
    words = SpokenLines()
    said = _say(
        words,
        _call(ToolCallState.VALIDATING),
        _call(ToolCallState.AWAITING_APPROVAL),
        _call(ToolCallState.AWAITING_APPROVAL),
        _call(ToolCallState.SCHEDULED, decision=ApprovalDecision.ALLOW_SESSION),
        _call(ToolCallState.EXECUTING, decision=ApprovalDecision.ALLOW_SESSION),
        _call(ToolCallState.EXECUTING, decision=ApprovalDecision.ALLOW_SESSION),
        _call(ToolCallState.ERROR, error="no such file"),
    )
    assert said == [
        f"Approval asked: read_file: read a.txt. {APPROVAL_KEYS}",
        "You allowed for this session: read_file: read a.txt.",
        "Tool read_file: read a.txt: running.",
        "Tool read_file: read a.txt: failed. no such file",
    ]


def test_notices_prompts_and_the_end_of_a_turn() -> None:
    words = SpokenLines()
    said = _say(
        words,
        ops.UserPromptShown("fix\nthe bug"),
        ops.Notice("quota\nexceeded", "error"),
        ops.StatusChanged(busy="x"),
        ops.TurnEnded(),
    )
    assert said == ["You: fix the bug", "Error: quota exceeded", "Done. Type your next prompt."]


def test_the_keys_said_are_letters_after_f8_never_digits() -> None:
    assert "F8" in APPROVAL_KEYS
    assert not any(ch.isdigit() for ch in APPROVAL_KEYS.replace("F8", ""))
