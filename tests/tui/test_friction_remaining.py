"""The rest of the first hour's friction: reports that stayed in toasts, the welcome
screen after the demo, and dialogs a screen reader did not say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import transcript_notices


def _toasts(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_agents_list_and_memory_show_are_written_into_the_conversation(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """A toast vanishes before a list is read: /agents and /memory show stay in the
    transcript, and no toast repeats them."""
    (workspace / "GEMINI.md").write_text("Use tabs.\n")
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.run_slash("/agents list")
        app.run_slash("/memory show")
        await pilot.pause()
        notes = transcript_notices(app)
        assert any(n.startswith("Agents (the model delegates") for n in notes), notes
        assert any("GEMINI.md" in n for n in notes), notes
        assert not any("Agents (" in t or "GEMINI.md" in t for t in _toasts(app))


async def test_the_welcome_screen_after_the_demo_says_the_demo_ended(workspace: Path) -> None:
    """Opened from the demo's end, the welcome screen says so and how to start, not that
    no provider is configured (the control: opened at start-up, it still says that)."""
    from textual.widgets import Static

    from gemtui.tui.screens.welcome import DEMO_SCRIPT, WelcomeScreen
    from tests.tui.helpers import Messages, turns_done
    from tests.tui.test_first_hour_friction import _demo_app, _play_the_demo

    def said(screen: Any) -> str:
        return "\n".join(str(s.render()) for s in screen.query(Static))

    app = _demo_app(workspace, DEMO_SCRIPT)
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await _play_the_demo(pilot, app, seen)
        await pilot.press(*"now for real", "enter")
        await pilot.pause()
        await turns_done(app)
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        text = said(app.screen)
        assert "The demo has ended. To start for real" in text
        assert "No model provider is configured" not in text
        fresh = WelcomeScreen(reason="some start-up error")
        await app.push_screen(fresh)
        await pilot.pause()
        assert "No model provider is configured yet" in said(fresh)
