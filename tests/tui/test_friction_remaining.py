"""The rest of the first hour's friction: reports that stayed in toasts, the welcome
screen after the demo, and dialogs a screen reader did not say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gemtui.bus.events import AgentFinished
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


def _reader_app(mock_llm: MockLLMServer, workspace: Path, on: bool = True) -> Any:
    from gemtui.config.ui_choice import UiChoice

    return make_app(make_session(mock_llm.url, workspace), workspace, ui=UiChoice(screen_reader=on))


@pytest.mark.parametrize("on", [True, False], ids=["screen-reader", "control"])
async def test_each_dialog_is_said_as_a_line_with_its_keys(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path, on: bool
) -> None:
    """A dialog drawn over the log is boxes a screen reader does not read: the yolo
    question, the trust question, the welcome, rewind and sessions screens each say
    their question and keys as a line when they open. The control: without the mode
    nothing is said (no log), though the same dialogs opened."""
    from dataclasses import replace

    from gemtui.config.trust import workspace_overrides
    from gemtui.store import SessionStore
    from gemtui.tui.screens.dialogs import ConfirmScreen
    from gemtui.tui.screens.rewind import RewindScreen
    from gemtui.tui.screens.sessions import SessionsScreen
    from gemtui.tui.screens.trust import TrustScreen
    from gemtui.tui.screens.welcome import WelcomeScreen
    from gemtui.tui.widgets.spoken_log import SpokenLog
    from tests.tui.test_folder_trust import _hostile

    _hostile(workspace, "http://203.0.113.7:8080")
    found = workspace_overrides(workspace)
    assert found is not None
    app = _reader_app(mock_llm, workspace, on)
    opened: list[type] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"/approval-mode yolo", "enter")
        await pilot.pause()
        opened.append(type(app.screen))
        await pilot.press("f8", "n")
        await pilot.pause()
        with SessionStore() as store:
            for screen in (
                TrustScreen(replace(found, folder=Path("/home/me/project"))),
                WelcomeScreen(reason="The demo has ended.", back=True),
                RewindScreen([], lambda point: None),  # type: ignore[arg-type,return-value]
                SessionsScreen(store, workspace=workspace),
            ):
                await app.push_screen(screen)
                await pilot.pause()
                opened.append(type(app.screen))
                app.pop_screen()
                await pilot.pause()
        logs = list(app.main.query(SpokenLog).results())
        said = [line for line in (logs[0].said if logs else []) if line.startswith("Dialog: ")]
    assert opened == [ConfirmScreen, TrustScreen, WelcomeScreen, RewindScreen, SessionsScreen]
    if not on:
        assert said == []
        return
    assert len(said) == 5, said
    yolo, trust, welcome, rewind, sessions = said
    assert yolo.startswith("Dialog: Turn on yolo for this session?")
    assert yolo.endswith("Keys: y yes, n no.")
    assert trust.startswith("Dialog: Trust /home/me/project? Keys: ")
    assert "The demo has ended." in welcome
    assert "Escape goes back" in welcome
    assert rewind.startswith("Dialog: Rewind to before a prompt.")
    assert "Enter opens" in sessions
    assert sessions.endswith("Escape closes.")


async def test_an_edit_approval_says_its_size(mock_llm: MockLLMServer, workspace: Path) -> None:
    """The diff is a box the log does not draw: the approval line says the edit's size."""
    from gemtui.tui.widgets.spoken_log import SpokenLog
    from tests.tui.helpers import Messages

    (workspace / "a.py").write_text("one\ntwo\n")
    call = {"name": "write_file", "args": {"file_path": "a.py", "content": "one\nTWO\n3\n4\n"}}
    mock_llm.enqueue({"function_calls": [call]}, {"text": "ok"})
    app = _reader_app(mock_llm, workspace)
    seen = Messages()
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await pilot.press(*"edit it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        said = app.main.query_one(SpokenLog).said
        asked = next(line for line in said if line.startswith("Approval asked:"))
        await pilot.press("f8", "r")
        await seen.wait_event(AgentFinished)
    assert ". edit a.py: +3 −1 lines. To answer press F8" in asked, asked
