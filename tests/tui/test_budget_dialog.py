"""The cap dialog (issue 37, item 2): at a cap the TUI asks, raise or stop, and nothing
typed is lost; under a cap a model with no price is asked about before its first call.

Through the real app (``build_app`` with ``--max-budget-usd``'s option, or
``[budget] daily_usd``) against the wire mock. gemini-2.5-flash costs $0.30 per million
input tokens, so a first call the mock reports with a million prompt tokens passes a
$0.25 cap: the next call is the one the cap refuses. Each test's control is the same
script without the cap (or with a priced model): the refused call is then made unasked.
Headless keeps exiting 54 (``tests/integration/test_budget.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from gemtui.agent.assembly import RunOptions
from gemtui.bus import events as ev
from gemtui.bus.events import AgentFinished, BudgetAsked, TerminateReason
from gemtui.config.settings import Settings
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.budget_flow import STOPPED_NOTICE
from gemtui.tui.launch import build_app
from gemtui.tui.screens.budget import BudgetScreen, parse_raise
from gemtui.tui.screens.main import MainScreen
from tests.tui.helpers import Messages, engine_started, group_done, turns_done
from tests.tui.test_resume_shows_what_happened import _settings_for
from tests.tui.test_transcript import screen_text, settle

MILLION = {"prompt": 1_000_000, "output": 0}
"""$0.30 at gemini-2.5-flash's price."""
SMALL = {"prompt": 100_000, "output": 0}
"""$0.03."""
READ = {
    "function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}],
    "usage": MILLION,
}
"""The first answer: $0.30, and a read, so the prompt needs a second call."""
DONE = {"text": "All done after the raise.", "usage": SMALL}
PROMPT = "summarise a.txt"


def _settings(url: str, budget: dict[str, float] | None = None) -> Settings:
    """The mock as a Gemini provider; no compression (a million-token request would count
    tokens first) and the caps given."""
    data = _settings_for(url).model_dump()
    data["chat"] = {**data.get("chat", {}), "compression_threshold": 0.99}
    if budget:
        data["budget"] = budget
    return Settings.model_validate(data)


def _app(
    mock: MockLLMServer,
    workspace: Path,
    *,
    cap: float | None = 0.25,
    daily: float | None = None,
    model: str = "gemini-2.5-flash",
) -> GemtuiApp:
    (workspace / "a.txt").write_text("alpha\n")
    settings = _settings(mock.url, {"daily_usd": daily} if daily else None)
    options = RunOptions(workspace=workspace, model=model, max_budget_usd=cap)
    app = build_app(settings, options)
    assert isinstance(app, GemtuiApp)
    return app


async def _asked(app: GemtuiApp, seen: Messages, pilot: Pilot[Any], **fields: Any) -> BudgetScreen:
    """The BudgetAsked event has come (with these field values), and its dialog is in
    front."""
    asked = await seen.wait_event(BudgetAsked)
    assert {k: getattr(asked, k) for k in fields} == fields
    while not isinstance(app.screen, BudgetScreen):
        await pilot.pause()
    return app.screen


def _text(screen: BudgetScreen) -> str:
    return " ".join(str(s.render()) for s in screen.query(Static))


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")


@pytest.mark.parametrize(
    ("cap", "daily", "kind"),
    [(0.25, None, "session"), (None, 0.25, "daily")],
    ids=["session-cap", "daily-cap"],
)
async def test_raise_lets_the_refused_call_start_and_the_prompt_goes_on(
    mock_llm: MockLLMServer, workspace: Path, cap: float | None, daily: float | None, kind: str
) -> None:
    """The first call passes the cap: the dialog asks before the second starts; +$1
    (after F8) lets it start, and its answer shows in the same prompt."""
    mock_llm.enqueue(READ, DONE)
    app = _app(mock_llm, workspace, cap=cap, daily=daily)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*PROMPT, "enter")
        screen = await _asked(app, seen, pilot, kind=kind)
        assert len(mock_llm.requests) == 1, "the refused call has not started"
        shown = _text(screen)
        assert "$0.3000" in shown, shown
        assert "$0.2500" in shown, shown
        await pilot.press("f8", "1")
        finished = await seen.wait_event(AgentFinished)
        assert finished.reason == TerminateReason.GOAL, finished.error
        assert len(mock_llm.requests) == 2, "the refused call started after the raise"
        await turns_done(app)
        transcript = app.main.transcript
        await settle(pilot, transcript)
        assert "All done after the raise." in screen_text(transcript)
        budget = app.session.executor.config.budget if app.session else None
        assert budget is not None
        assert (budget.session_usd if kind == "session" else budget.daily_usd) == 1.25
    app.close_store()


async def test_without_a_cap_the_same_prompt_makes_both_calls_unasked(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Control: no cap, no question; the call the cap refused is made at once."""
    mock_llm.enqueue(READ, DONE)
    app = _app(mock_llm, workspace, cap=None)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*PROMPT, "enter")
        finished = await seen.wait_event(AgentFinished)
        assert finished.reason == TerminateReason.GOAL
        assert len(mock_llm.requests) == 2
        assert not any(isinstance(getattr(m, "event", None), BudgetAsked) for m in seen.seen)
    app.close_store()


async def test_stop_ends_the_prompt_and_keeps_everything_typed(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Keys typed while the question is up go to the prompt box (never an answer: "1"
    there is text, not +$1); Esc stops: no further request, the prompt ends with the
    cap's words, the typed draft is still in the box and the prompt in the history."""
    mock_llm.enqueue(READ, DONE)
    app = _app(mock_llm, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*PROMPT, "enter")
        await _asked(app, seen, pilot)
        await pilot.press(*"next: 1 more idea", "enter")
        assert isinstance(app.screen, BudgetScreen), "typed text answered nothing"
        assert len(mock_llm.requests) == 1
        prompt = app.main.prompt
        assert prompt.text == "next: 1 more idea"
        await pilot.press("escape")
        finished = await seen.wait_event(AgentFinished)
        assert finished.reason == TerminateReason.ERROR
        assert finished.exit_code == 54
        assert "Budget reached" in (finished.error or "")
        await turns_done(app)
        assert isinstance(app.screen, MainScreen)
        assert len(mock_llm.requests) == 1, "nothing was sent past the cap"
        assert prompt.text == "next: 1 more idea"
        assert prompt.prompt_history[-1] == PROMPT
        transcript = app.main.transcript
        await settle(pilot, transcript)
        shown = screen_text(transcript)
        assert " ".join(STOPPED_NOTICE.split()[:4]) in shown, shown
        assert PROMPT in shown
    app.close_store()


async def test_a_cancel_while_asked_ends_the_prompt_and_takes_the_question_away(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Ctrl+C while the question is up cancels the prompt as anywhere else: nothing more
    is sent and the question, which nothing waits on now, closes with it."""
    mock_llm.enqueue(READ, DONE)
    app = _app(mock_llm, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*PROMPT, "enter")
        await _asked(app, seen, pilot)
        await pilot.press("ctrl+c")
        finished = await seen.wait_event(AgentFinished)
        assert finished.reason == TerminateReason.ABORTED
        await group_done(app, "budget-question")
        assert isinstance(app.screen, MainScreen)
        assert len(mock_llm.requests) == 1
    app.close_store()


async def test_a_typed_raise_is_checked_and_kept_until_it_is_right(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """r opens the amount: not a number, or too little to pass what was spent, is said
    and the typed text stays to be corrected; a right amount lets the call start."""
    mock_llm.enqueue(READ, DONE)
    app = _app(mock_llm, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*PROMPT, "enter")
        screen = await _asked(app, seen, pilot)
        await pilot.press("f8", "r", *"lots", "enter")
        amount = screen.query_one("#budget-amount", Input)
        problem = screen.query_one("#budget-problem", Static)
        assert amount.value == "lots"
        assert "not an amount" in str(problem.render())
        await pilot.press(*["backspace"] * 4, *"0.01", "enter")
        assert "raise by more than $0.0500" in str(problem.render())
        assert app.screen is screen
        assert len(mock_llm.requests) == 1
        await pilot.press(*["backspace"] * 4, *"$2", "enter")
        finished = await seen.wait_event(AgentFinished)
        assert finished.reason == TerminateReason.GOAL
        assert len(mock_llm.requests) == 2
        assert app.session is not None
        assert app.session.executor.config.budget is not None
        assert app.session.executor.config.budget.session_usd == 2.25
    app.close_store()


@pytest.mark.parametrize("answer", ["go on", "stop"])
async def test_a_model_with_no_price_is_asked_about_before_any_request(
    mock_llm: MockLLMServer, workspace: Path, answer: str
) -> None:
    """Under a cap, a model with no known price is never counted as $0: the question
    comes before the first request; going on sends it (and is not asked again this
    session), stopping sends nothing and says how to give a price."""
    mock_llm.enqueue({"text": "Unpriced answer.", "usage": SMALL})
    mock_llm.enqueue({"text": "Second unpriced answer.", "usage": SMALL})
    app = _app(mock_llm, workspace, cap=5.0, model="no-such-model")
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*PROMPT, "enter")
        screen = await _asked(app, seen, pilot, kind="unpriced", model="no-such-model")
        assert mock_llm.requests == [], "asked before any request"
        shown = _text(screen)
        assert "prices = {" in shown, shown
        assert "cannot be kept" in shown, shown
        if answer == "stop":
            await pilot.press("escape")
            finished = await seen.wait_event(AgentFinished)
            assert finished.reason == TerminateReason.ERROR
            assert finished.exit_code == 54
            assert mock_llm.requests == []
            return
        await pilot.press("f8", "g")
        finished = await seen.wait_event(AgentFinished)
        assert finished.reason == TerminateReason.GOAL
        assert len(mock_llm.requests) == 1
        await turns_done(app)
        mark = len(seen.seen)
        await pilot.press(*"again", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        assert len(mock_llm.requests) == 2
        asked = [m for m in seen.seen if isinstance(getattr(m, "event", None), BudgetAsked)]
        assert len(asked) == 1, "going on holds for the session"
    app.close_store()


async def test_a_priced_model_under_the_same_cap_is_not_asked_about(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Control: the same cap with a priced model sends the first request unasked."""
    mock_llm.enqueue({"text": "Priced answer.", "usage": SMALL})
    app = _app(mock_llm, workspace, cap=5.0)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*PROMPT, "enter")
        finished = await seen.wait_event(AgentFinished)
        assert finished.reason == TerminateReason.GOAL
        assert len(mock_llm.requests) == 1
    app.close_store()


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("2", 2.0),
        ("$2.50", 2.5),
        ("+5", 5.0),
        ("1,000", 1000.0),
        ("0", "more than $0"),
        ("-3", "more than $0"),
        ("nan", "more than $0"),
        ("inf", "more than $0"),
        ("", "not an amount"),
        ("five", "not an amount"),
        ("0.04", "raise by more than $0.0500"),
    ],
)
def test_parse_raise(typed: str, expected: float | str) -> None:
    """A raise is a positive, finite number of dollars that lifts the cap above what was
    spent ($0.30 of $0.25 here)."""
    got = parse_raise(typed, 0.30, 0.25)
    if isinstance(expected, float):
        assert got == expected
    else:
        assert isinstance(got, str)
        assert expected in got


ASKED = ev.BudgetAsked(
    correlation_id="budget-1",
    kind="session",
    message=(
        "Budget reached: this session spent $0.3000 of its $0.2500 cap"
        " (--max-budget-usd / [budget] session_usd)."
    ),
    model="gemini-2.5-flash",
    spent=0.30,
    cap=0.25,
)


def _ask_then(*keys: str) -> Any:
    """A snapshot's set-up: the question arrives (as the bridge posts it), then ``keys``."""

    async def run_before(pilot: Pilot[Any]) -> None:
        from gemtui.tui.bridge import BusEvent

        app = pilot.app
        assert isinstance(app, GemtuiApp)
        app.main.on_bus_event(BusEvent(ASKED))
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        await pilot.pause()

    return run_before


class TestBudgetDialog:
    def test_the_cap_dialog(self, snap_compare: Any, tmp_path: Path) -> None:
        """In front of the conversation: "Budget reached: raise the cap for this session,
        or stop?", the engine's words in the warning colour ($0.3000 of its $0.2500 cap),
        what a raise does, and the keys line saying keys typed now go to the prompt, F8
        to answer, Esc stops."""
        from tests.tui.test_snapshots import _app as snapshot_app

        assert snap_compare(snapshot_app(tmp_path), terminal_size=(100, 30), run_before=_ask_then())

    def test_the_cap_dialog_answering_with_a_typed_amount(
        self, snap_compare: Any, tmp_path: Path
    ) -> None:
        """After F8 and r: the keys line lists 1 (+$1), 5 (+$5), r (an amount) and s / Esc
        (stop); the amount field shows "0.01" and, under it in the error colour, why that
        is too little ("raise by more than $0.0500")."""
        from tests.tui.test_snapshots import _app as snapshot_app

        keys = ("f8", "r", *"0.01", "enter")
        assert snap_compare(
            snapshot_app(tmp_path), terminal_size=(100, 30), run_before=_ask_then(*keys)
        )


async def test_only_the_agent_on_screen_asks_and_one_off_screen_ends_at_its_cap(
    workspace: Path,
) -> None:
    """An agent working in the background at its cap is asked by nobody: its prompt ends
    (exit 54) instead of waiting on a question no one sees. Brought to the front, the
    same agent asks, and a raise lets its call start; the agent sent back stops asking."""
    from gemtui.agent.budget_attach import attach_budget
    from tests.tui.agent_fleet import SessionsFleet
    from tests.tui.conftest import make_app, make_session
    from tests.tui.test_agent_view import _rows_settle

    small_read = {**READ, "usage": SMALL}  # $0.03 passes a $0.01 cap
    async with MockLLMServer() as front, MockLLMServer() as back:
        back.enqueue(small_read, DONE)
        (workspace / "b").mkdir()
        (workspace / "b" / "a.txt").write_text("alpha\n")
        first = make_session(front.url, workspace)
        second = make_session(back.url, workspace / "b")
        for session in (first, second):
            attach_budget(session, Settings(), 0.01, None)
        app = make_app(first, workspace)
        seen = Messages()
        async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
            fleet = SessionsFleet()
            fleet.adopt(first, "front")
            b = fleet.adopt(second, "read a.txt")
            app.attach_fleet(fleet)
            fleet.run(b, "read a.txt")
            await _rows_settle(seen, fleet, {b: "failed"})
            assert len(back.requests) == 1, "stopped at its cap, not waiting on a question"
            await pilot.press("f5", "down", "enter")
            assert app.session is second
            mark = len(seen.seen)
            await pilot.press(*"go on", "enter")
            await _asked(app, seen, pilot)
            assert len(back.requests) == 1
            await pilot.press("f8", "1")
            finished = await seen.wait_event(AgentFinished, after=mark)
            assert finished.reason == TerminateReason.GOAL
            assert len(back.requests) == 2
            await turns_done(app)
            await pilot.press("f5", "up", "enter")
            assert app.session is first
            assert second.executor.config.budget is not None
            assert not second.executor.config.budget.asks, "off screen: it asks nobody"
