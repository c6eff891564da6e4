"""Text from the model or a server never reaches the terminal as an escape sequence:
an answer holding OSC 52 (a clipboard write) or OSC 0 (a window title) is drawn with a
visible stand-in for ESC, and the bytes Textual would write carry the app's own
sequences but not the planted ones; the fallback dialog's server message likewise."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from gemtui.tui.screens.dialogs import FallbackScreen
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, engine_started, turns_done
from tests.tui.test_resume_shows_what_happened import _settings_for
from tests.tui.test_transcript import screen_text, settle

CLIPBOARD = "\x1b]52;c;cGxhbnRlZA==\x1b\\"
TITLE = "\x1b]0;pwned-title\x07"
PLANTED = f"Before {CLIPBOARD} middle {TITLE} after"


def terminal_bytes(app: App[object]) -> str:
    """What the driver would write for a full redraw of the screen in front."""
    update = app.screen._compositor.render_update(full=True)
    assert update is not None
    return str(update.render_segments(app.console))  # type: ignore[union-attr]


async def test_an_answer_with_osc_52_and_osc_0_never_reaches_the_terminal(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": PLANTED})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"hi", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await settle(pilot, app.main.transcript)
        written = terminal_bytes(app)
        shown = screen_text(app.main.transcript)
    assert "\x1b[" in written, "the app's own sequences are there"
    assert "\x1b]52;" not in written
    assert "\x1b]0;" not in written
    assert "]52;c;cGxhbnRlZA==" in shown, "the text is shown"
    assert "pwned-title" in shown
    assert "␛]52;c;" in shown, "with a visible stand-in for the ESC"


async def test_the_fallback_dialog_shows_the_servers_words_without_their_escapes(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    error = {
        "status": 429,
        "message": f"Quota exceeded per day. {CLIPBOARD}{TITLE}",
        "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
    }
    mock_llm.enqueue({"error": error}, {"text": "flash answers"})
    app = make_app(make_session(mock_llm.url, workspace, model="gemini-2.5-pro"), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"hello", "enter")
        await seen.wait_for(lambda m: isinstance(app.screen, FallbackScreen))
        await pilot.pause()
        shown = " ".join(str(s.render()) for s in app.screen.query("Static"))
        written = terminal_bytes(app)
        await pilot.press("f8", "x")
        await seen.wait_event(AgentFinished)
    assert "pwned-title" in shown
    assert "\x1b]52;" not in written
    assert "\x1b]0;" not in written


class _Unguarded(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(Text(PLANTED))


async def test_control_without_the_guard_the_planted_sequence_is_written() -> None:
    """The check above can see a planted sequence: drawn raw, it is in the bytes."""
    app = _Unguarded()
    async with app.run_test(size=(120, 5)) as pilot:
        await pilot.pause()
        written = terminal_bytes(app)
    assert "\x1b]52;c;cGxhbnRlZA==" in written


async def test_a_resumed_answer_with_osc_52_never_reaches_the_terminal(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored answer is drawn on resume without the view model: it is cleaned too."""
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    mock_llm.enqueue({"text": PLANTED})
    settings = _settings_for(mock_llm.url)
    app = build_app(settings, RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*"hi", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert app.session is not None
        session_id = app.session.id
    app.close_store()
    again = build_app(settings, RunOptions(workspace=workspace, resume=session_id))
    assert isinstance(again, GemtuiApp)
    seen = Messages()
    async with again.run_test(size=(120, 30), message_hook=seen) as pilot:
        await engine_started(again, seen)
        await settle(pilot, again.main.transcript)
        written = terminal_bytes(again)
        shown = screen_text(again.main.transcript)
    again.close_store()
    assert "pwned-title" in shown, "the resumed answer is drawn"
    assert "\x1b]52;" not in written
    assert "\x1b]0;" not in written
