"""The screen-reader mode's words (``view.spoken``): what each view operation says, read
as plain values without a terminal."""

from __future__ import annotations

from msgspec.structs import replace

from gemtui.bus.events import Confirmation, ToolCallSnapshot
from gemtui.bus.values import ApprovalDecision, ToolCallState
from gemtui.tui.view import ops
from gemtui.tui.view.approval_keys import keys_help, spoken_keys
from gemtui.tui.view.spoken import SpokenLines


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
        f"Approval asked: read_file: read a.txt. {spoken_keys(_call(ToolCallState.AWAITING_APPROVAL).call)}",
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


def _asking(kind: str, scopes: tuple[tuple[str, str], ...] = ()) -> ToolCallSnapshot:
    call = _call(ToolCallState.AWAITING_APPROVAL).call
    return replace(call, confirmation=Confirmation(kind=kind, title="t", scopes=scopes))


def test_the_keys_said_are_letters_after_f8_never_digits() -> None:
    said = spoken_keys(_asking("exec"))
    assert said.startswith("To answer press F8, then a allow once, s allow for this session")
    assert not any(ch.isdigit() for ch in said.replace("F8", ""))


def test_the_keys_said_are_the_keys_the_queue_offers_for_that_call() -> None:
    """A shell command is not offered "this MCP server" (it was said for every call), an
    MCP call is; the reach is said only where the call has one."""
    shell, mcp = spoken_keys(_asking("exec")), spoken_keys(_asking("mcp"))
    assert "MCP server" not in shell
    assert "capital S" not in shell
    assert "capital S allow this MCP server always" in mcp
    assert "w choose what is remembered" not in shell
    assert "w choose what is remembered" in spoken_keys(
        _asking("edit", (("file", "a.txt"), ("folder", "src/")))
    )
    for server in (False, True):  # every letter the queue shows is said, in its order
        shown = [key for _, key, _, _ in keys_help(server=server) if key != "d"]
        said = spoken_keys(_asking("mcp" if server else "exec"))
        named = [
            {"^a": "Control A", "j/k": "j or k"}.get(k, f"capital {k}" if k.isupper() else k)
            for k in shown
        ]
        positions = [said.index(f" {name} ") for name in named]
        assert positions == sorted(positions)
