"""The conversation view's rules, without a terminal: events in, view operations out.

What the Pilot tests used to be the only check of (masking, thoughts, subagents, usage,
tool-call states, retries, errors) runs here in milliseconds against
``ConversationView``; the Pilot tests keep keys, focus and layout.
"""

from __future__ import annotations

import pytest

from gemtui.bus.events import (
    AccountStatus,
    AgentFinished,
    Citation,
    ContentDelta,
    ErrorOccurred,
    Event,
    HistoryCompressed,
    HookRan,
    McpServerChanged,
    ModelChanged,
    ModelFallback,
    ModelRouted,
    ProviderProgress,
    RequestRetrying,
    SessionStarted,
    StreamRetried,
    ThoughtDelta,
    TodosUpdated,
    ToolCallSnapshot,
    ToolCallState,
    ToolCallStateChanged,
    ToolOutput,
    TurnFinished,
    TurnStarted,
    UserMessage,
)
from gemtui.bus.values import TerminateReason, Usage
from gemtui.tui.view import ConversationView, ops
from gemtui.tui.view.conversation import CANCELLED_NOTICE, mcp_summary

KEY = "AIzaSyVIEW-0123456789abcdefghijklmn"
MASK = "[redacted]"
P1 = "s#1"


def feed_all(view: ConversationView, *events: Event) -> list[ops.Op]:
    out: list[ops.Op] = []
    for event in events:
        out += view.feed(event)
    return out


def answer(out: list[ops.Op]) -> str:
    return "".join(op.text for op in out if isinstance(op, ops.AnswerText))


def thought_text(out: list[ops.Op]) -> str:
    return "".join(op.text for op in out if isinstance(op, ops.ThoughtText))


def of(kind: type[ops.Op], out: list[ops.Op]) -> list[ops.Op]:
    return [op for op in out if isinstance(op, kind)]


def chunks(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def call(state: ToolCallState, call_id: str = "c1", name: str = "read_file") -> ToolCallSnapshot:
    return ToolCallSnapshot(call_id=call_id, name=name, args={}, state=state)


def finished(
    usage: Usage | None = None,
    *,
    cost: float | None = None,
    parent_id: str = "",
    prompt_id: str = "",
    message: str | None = None,
) -> TurnFinished:
    return TurnFinished(
        finish_reason="STOP",
        usage=usage or Usage(),
        model="m",
        cost=cost,
        parent_id=parent_id,
        prompt_id=prompt_id,
        message=message,
    )


# -- masking ---------------------------------------------------------------------------------
@pytest.mark.parametrize("known", [True, False], ids=["key-known", "control-key-unknown"])
def test_a_key_split_between_deltas_never_reaches_the_answer_or_thoughts(
    known: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key arrives a few characters per delta; what is drawn is masked, held-back
    tails included. The control (the key not known as a secret) shows the plant is real:
    the same stream then draws the key."""
    if known:
        monkeypatch.setenv("GEMINI_API_KEY", KEY)
    view = ConversationView()
    text, thought = f"It-is:{KEY}.", f"**Keys** found:{KEY}"
    out = feed_all(
        view,
        TurnStarted(turn=1, model="m", prompt_id=P1),
        *(ThoughtDelta(text=c, subject="Keys", prompt_id=P1) for c in chunks(thought)),
        *(ContentDelta(text=c, prompt_id=P1) for c in chunks(text)),
        finished(prompt_id=P1),
    )
    if known:
        assert answer(out) == f"It-is:{MASK}."
        assert thought_text(out) == f"**Keys** found:{MASK}"
        assert all(KEY not in repr(op) for op in out if not isinstance(op, ops.Streamed))
    else:
        assert answer(out) == text
        assert thought_text(out) == thought


def test_prompts_attachments_and_hook_summaries_are_masked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    out = feed_all(
        ConversationView(),
        UserMessage(text=f"again with {KEY}", attached=f"@k.txt: {KEY}"),
        HookRan(hook_event="BeforeTool", hook=f"echo {KEY}", outcome="failed"),
    )
    assert out[:3] == [
        ops.ScrolledToLatest(),
        ops.UserPromptShown(f"again with {MASK}"),
        ops.Notice(f"@k.txt: {MASK}"),
    ]
    [hook] = of(ops.Notice, out[3:])
    assert KEY not in hook.text
    assert hook.severity == "warning"


def test_a_retried_stream_drops_its_partial_answer_and_held_tail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The held-back tail of the broken stream (maybe a key's start) is never drawn
    after the retry: the new stream starts clean."""
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    view = ConversationView()
    first = feed_all(view, ContentDelta(text="Half " + KEY[:12]))
    assert answer(first) == "Half "
    out = view.feed(StreamRetried(attempt=1, reason="reset"))
    assert out == [
        ops.AnswerDiscarded(),
        ops.Notice("The stream broke (reset); retrying.", "warning"),
    ]
    out = feed_all(view, ContentDelta(text="Whole."), finished())
    assert answer(out) == "Whole."


# -- answers and thoughts -------------------------------------------------------------------
def test_an_answer_opens_streams_and_closes_with_its_turn() -> None:
    view = ConversationView()
    out = feed_all(view, ContentDelta(text="Hello"))
    assert out == [ops.AnswerOpened(), ops.AnswerText("Hello"), ops.Streamed("Hello")]
    out = view.feed(finished(Usage(1, 2, total=3), cost=0.5))
    assert out == [ops.AnswerClosed(), ops.TurnCounted(Usage(1, 2, total=3), 0.5)]


def test_one_marker_per_thinking_call_and_one_per_new_subject() -> None:
    view = ConversationView()
    out = feed_all(
        view,
        TurnStarted(turn=1, model="m"),
        ThoughtDelta(text="a", subject=None),
        ThoughtDelta(text="b", subject=None),
        ThoughtDelta(text="c", subject="Plan"),
        ThoughtDelta(text="d", subject="Plan"),
    )
    assert of(ops.ThoughtMarker, out) == [ops.ThoughtMarker(None), ops.ThoughtMarker("Plan")]
    assert of(ops.Streamed, out)[0] == ops.Streamed("a", thought=True)
    again = feed_all(view, TurnStarted(turn=2, model="m"), ThoughtDelta(text="e", subject="Plan"))
    assert of(ops.ThoughtMarker, again) == [ops.ThoughtMarker("Plan")]  # a new call marks again
    assert again[0] == ops.StatusChanged(model="m")
    assert again[1] == ops.ModelCallStarted()


def test_a_thoughts_held_tail_is_flushed_before_the_answer_and_on_a_new_subject(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tail held back (it could start a secret) is drawn under its own subject and
    prompt, before the next subject's text and before the answer begins."""
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    view = ConversationView()
    held = KEY[:6]  # looks like a key's start: held back
    out = feed_all(view, ThoughtDelta(text="x " + held, subject="One", prompt_id=P1))
    assert thought_text(out) == "x "
    out = view.feed(ThoughtDelta(text="y", subject="Two", prompt_id=P1))
    assert out[0] == ops.ThoughtText(held, "One", P1)
    view.feed(ThoughtDelta(text=" " + held, subject="Two", prompt_id=P1))
    out = view.feed(ContentDelta(text="Answer"))
    assert out[:2] == [ops.ThoughtText(held, "Two", P1), ops.AnswerOpened()]


# -- subagents ------------------------------------------------------------------------------
def test_a_subagents_words_go_to_its_card_never_the_answer() -> None:
    view = ConversationView()
    out = feed_all(
        view,
        ContentDelta(text="mine", parent_id="d1"),
        ThoughtDelta(text="hmm", subject="S", parent_id="d1"),
    )
    assert out == [ops.SubagentText("d1", "mine")]
    # control: the same text without a parent is the answer
    assert answer(view.feed(ContentDelta(text="mine"))) == "mine"


def test_a_subagents_turn_counts_on_its_card_and_leaves_the_answer_open() -> None:
    view = ConversationView()
    view.feed(ContentDelta(text="Working"))
    usage = Usage(input=10, output=5, thoughts=2)
    out = view.feed(finished(usage, cost=0.25, parent_id="d1"))
    assert out == [ops.SubagentTurn("d1", 17, usage, 0.25)]  # no total: the sum
    out = view.feed(finished(Usage(total=40), parent_id="d1"))
    assert out == [ops.SubagentTurn("d1", 40, Usage(total=40), None)]


def test_a_subagents_tool_call_names_its_parent() -> None:
    out = ConversationView().feed(
        ToolCallStateChanged(call=call(ToolCallState.EXECUTING), parent_id="d1", prompt_id=P1)
    )
    assert out[-1] == ops.ToolCallShown(call(ToolCallState.EXECUTING), "d1", P1)


# -- tool calls -----------------------------------------------------------------------------
def test_a_tool_call_closes_the_answer_first_and_an_approval_is_scrolled_to() -> None:
    view = ConversationView()
    view.feed(ContentDelta(text="Let me look."))
    waiting = call(ToolCallState.AWAITING_APPROVAL)
    out = view.feed(ToolCallStateChanged(call=waiting, prompt_id=P1))
    assert out == [ops.AnswerClosed(), ops.ScrolledToLatest(), ops.ToolCallShown(waiting, "", P1)]
    running = call(ToolCallState.EXECUTING)
    out = view.feed(ToolCallStateChanged(call=running, prompt_id=P1))
    assert ops.ScrolledToLatest() not in out  # only a call awaiting approval takes the view
    assert view.feed(ToolOutput(call_id="c1", text="line")) == [ops.ToolOutputShown("c1", "line")]


def test_todos_are_shown_whole() -> None:
    todos = ({"status": "completed", "description": "a"}, {"description": "b"})
    [op] = ConversationView().feed(TodosUpdated(todos=todos))
    assert isinstance(op, ops.TodosShown)
    assert op.statuses == ("completed", "")
    assert len(op.lines) == 2


# -- usage ----------------------------------------------------------------------------------
def test_usage_is_counted_once_per_call_routing_included() -> None:
    view = ConversationView()
    routed = ModelRouted(model="flash", reason="easy", router_model="r", usage=Usage(5, 1))
    out = view.feed(routed)
    assert out == [
        ops.StatusChanged(model="flash"),
        ops.Notice("auto chose flash: easy"),
        ops.TurnCounted(Usage(5, 1), None),
    ]
    free = ModelRouted(model="pro", reason="", router_model="r", usage=Usage(), fell_back=True)
    assert of(ops.TurnCounted, view.feed(free)) == []
    assert view.feed(free)[1] == ops.Notice("auto kept pro", "warning")
    out = view.feed(HistoryCompressed(tokens_before=9000, tokens_after=1200))
    assert out == [
        ops.CompressionCounted(9000, 1200),
        ops.Notice("History compressed: 9,000 → 1,200 tokens."),
    ]
    assert of(ops.TurnCounted, view.feed(finished(Usage(1, 1), message="cut short"))) == [
        ops.TurnCounted(Usage(1, 1), None)
    ]


# -- errors and the end of a prompt ---------------------------------------------------------
def test_a_failure_is_said_once() -> None:
    view = ConversationView()
    out = view.feed(ErrorOccurred(message="Bad request", hint="check the key", prompt_id=P1))
    assert out == [ops.Notice("Bad request\ncheck the key", "error")]
    out = view.feed(AgentFinished(reason=TerminateReason.ERROR, text="", error="Bad", prompt_id=P1))
    assert of(ops.Notice, out) == []
    # control: a failure not said before is said at the end
    out = view.feed(AgentFinished(reason=TerminateReason.ERROR, text="", error="Bad", prompt_id=P1))
    assert of(ops.Notice, out) == [ops.Notice("Bad", "error")]


def test_a_warning_does_not_silence_the_failure() -> None:
    view = ConversationView()
    assert view.feed(ErrorOccurred(message="slow", kind="warning", prompt_id=P1)) == [
        ops.Notice("slow", "warning")
    ]
    out = view.feed(AgentFinished(reason=TerminateReason.ERROR, text="", error="Bad", prompt_id=P1))
    assert ops.Notice("Bad", "error") in out


@pytest.mark.parametrize(("provider", "asks"), [("code-assist", True), ("gemini", False)])
def test_a_refused_google_grant_asks_for_sign_in_only_with_google(
    provider: str, asks: bool
) -> None:
    view = ConversationView(provider=lambda: provider)
    out = view.feed(ErrorOccurred(message="grant refused", kind="FatalAuthenticationError"))
    assert (ops.SignInNeeded("grant refused") in out) is asks


def test_a_cancelled_prompt_is_marked_and_its_answer_kept() -> None:
    view = ConversationView()
    view.feed(ContentDelta(text="partial"))
    out = view.feed(AgentFinished(reason=TerminateReason.ABORTED, text=""))
    assert out == [
        ops.AnswerClosed(),
        ops.StatusChanged(busy=""),
        ops.StreamEnded(),
        ops.TurnEnded(),
        ops.PromptCancelled(),
        ops.Notice(CANCELLED_NOTICE, "warning"),
    ]
    out = view.feed(AgentFinished(reason=TerminateReason.MAX_TURNS, text=""))
    assert out[-1] == ops.Notice("Stopped at the turn limit.", "warning")
    out = view.feed(AgentFinished(reason=TerminateReason.GOAL, text="", error="ignored"))
    assert of(ops.Notice, out) == []


# -- retries --------------------------------------------------------------------------------
def test_a_retry_wait_counts_down_and_ends() -> None:
    now = [100.0]
    view = ConversationView(clock=lambda: now[0])
    retry = RequestRetrying(attempt=1, max_attempts=3, wait=5.0, message="503", target="flash")
    assert view.feed(retry) == [ops.RetryWaitStarted()]
    assert view.count_down("") == ("retrying in 5s (attempt 2/3) · flash", 0.25)
    now[0] += 2.2
    busy, _ = view.count_down("retrying in 5s (attempt 2/3) · flash")
    assert busy == "retrying in 3s (attempt 2/3) · flash"
    now[0] += 10
    assert view.count_down(busy or "") == ("retrying now (attempt 2/3) · flash", None)
    assert view.count_down("") == (None, None)  # over: no more ticks


def test_a_retry_countdown_stops_when_something_else_is_shown_or_the_prompt_ends() -> None:
    view = ConversationView(clock=lambda: 0.0)
    view.feed(RequestRetrying(attempt=1, max_attempts=3, wait=5.0, message="503"))
    assert view.count_down("2 queued") == (None, None)
    view.feed(RequestRetrying(attempt=1, max_attempts=3, wait=5.0, message="503"))
    view.feed(AgentFinished(reason=TerminateReason.GOAL, text=""))
    assert view.count_down("") == (None, None)


# -- status ---------------------------------------------------------------------------------
def test_status_fields_follow_the_session_model_and_progress() -> None:
    view = ConversationView()
    assert view.feed(SessionStarted(provider="gemini", model="pro", workspace="/w")) == [
        ops.StatusChanged(provider="gemini", model="pro")
    ]
    assert view.feed(ModelFallback(from_model="pro", to_model="flash", reason="quota")) == [
        ops.StatusChanged(model="flash"),
        ops.Notice("Switched to flash: quota", "warning"),
    ]
    assert view.feed(ProviderProgress(message="loading")) == [ops.StatusChanged(busy="loading")]
    assert view.feed(Citation(text="[1] x")) == [ops.Notice("[1] x")]


def test_mcp_servers_are_summed_up() -> None:
    view = ConversationView()
    view.feed(McpServerChanged(server="a", status="starting", transport="stdio"))
    out = view.feed(McpServerChanged(server="b", status="failed", transport="http"))
    assert out == [ops.StatusChanged(mcp="MCP 0/2 … ✗1", mcp_trouble=True), ops.McpViewsStale()]
    out = view.feed(McpServerChanged(server="a", status="ready", transport="stdio"))
    assert out[0] == ops.StatusChanged(mcp="MCP 1/2 ✗1", mcp_trouble=True)
    assert mcp_summary(["ready"]) == "MCP 1/1"


def test_a_model_change_sets_the_status_line_and_the_usage_window() -> None:
    view = ConversationView()
    out = view.feed(
        ModelChanged(
            from_model="gemini-2.5-flash",
            to_model="qwen",
            from_provider="gemini",
            to_provider="openai",
            context_window=32_768,
            priced=False,
        )
    )
    assert ops.StatusChanged(provider="openai", model="qwen") in out
    assert ops.WindowChanged(32_768, False) in out


def test_a_refused_account_is_explained_never_sent_to_sign_in_again() -> None:
    view = ConversationView(provider=lambda: "code-assist")
    out = view.feed(ErrorOccurred(message="UNSUPPORTED_CLIENT", kind="AccountRefusedError"))
    assert ops.AccountRefused("UNSUPPORTED_CLIENT") in out
    assert not any(isinstance(op, ops.SignInNeeded) for op in out)
    # control: a refused grant (not a refused account) still asks for sign-in
    out = view.feed(ErrorOccurred(message="grant refused", kind="FatalAuthenticationError"))
    assert any(isinstance(op, ops.SignInNeeded) for op in out)


def test_an_event_inside_an_op_reaches_the_view_without_its_escapes() -> None:
    """Engine events are msgspec Structs, not dataclasses: one carried by an op (the
    account a server described) is cleaned like every other field."""
    planted = "free\x1b]52;c;cGxhbnRlZA==\x1b\\"
    (shown,) = ConversationView().feed(
        AccountStatus(email="me@example.com", project="p", tier=planted, prompt_id="p#1")
    )
    assert isinstance(shown, ops.AccountShown)
    assert "\x1b" not in shown.status.tier
    assert shown.status.tier.startswith("free␛]52;c;")
    assert shown.status.email == "me@example.com"
