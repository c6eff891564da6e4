"""The TUI builds every session the one way: flags survive the welcome screen and a
resume, and the start-up thread leaves the app's state to the UI thread."""

from __future__ import annotations

import threading
from pathlib import Path

from textual.widgets import Button

from gemtui.agent.assembly import Assembled, RunOptions, build_session
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings
from gemtui.store import SessionStore
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from gemtui.tui.screens.welcome import WelcomeScreen
from gemtui.wire import Content
from tests.tui.conftest import make_session
from tests.tui.helpers import Messages, engine_started, turns_done


def _saved_session(workspace: Path, question: str = "saved question") -> str:
    with SessionStore() as store:
        sid = store.create_session(
            title="saved work", workspace=str(workspace), provider="gemini", model="m"
        )
        store.add_message(sid, "user", Content.user(question))
        store.add_message(sid, "model", Content.model("saved answer"))
    return sid


async def test_flags_and_resume_survive_the_welcome_screen(workspace: Path) -> None:
    """No provider configured: the welcome screen opens; the demo it starts must still
    honour -m, --approval-mode and --resume (they were lost, and the history with them)."""
    sid = _saved_session(workspace)
    app = build_app(
        Settings(),
        RunOptions(workspace=workspace, model="m-flag", approval_mode="auto_edit", resume=sid),
    )
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        assert isinstance(app.screen, WelcomeScreen)
        app.screen.query_one("#demo", Button).press()
        await pilot.pause()
        assert app.session is not None
        assert app.session.chat.model == "m-flag"
        assert app.session.approval_mode == "auto_edit"
        assert app.main.status.approval_mode == "auto_edit"
        assert app.session.id == sid
        assert [c.role for c in app.session.chat.history] == ["user", "model"]
        await pilot.pause()
        assert ("user", "saved question") in app.main.transcript.messages()
    app.close_store()


async def test_resuming_keeps_the_main_screen_and_its_prompt_history(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    sid = _saved_session(workspace, "older question")
    store = SessionStore()
    app = GemtuiApp(
        settings=Settings(),
        session=make_session(mock_llm.url, workspace),
        workspace=workspace,
        raise_errors=True,
        store=store,
    )
    mock_llm.enqueue({"text": "first answer"})
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"first question", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        screen = app.main
        depth = len(app.screen_stack)
        app.controller.resume_session(sid)
        await pilot.pause()
        assert app.main is screen, "the main screen was popped and drawn anew"
        assert len(app.screen_stack) == depth
        assert app.main.prompt.prompt_history == ["first question"]
        assert app.session is not None
        assert app.session.id == sid
        messages = app.main.transcript.messages()
        assert ("user", "older question") in messages
        assert ("user", "first question") not in messages, "the old conversation stays drawn"
    app.close_store()


async def test_sessions_while_the_engine_starts_says_so_and_the_thread_writes_nothing(
    workspace: Path,
) -> None:
    """The engine starts in a thread; the app's store is set on the UI thread when it is
    done, and ``/sessions`` meanwhile says the store is opening, not that it failed."""
    release = threading.Event()
    built: list[Assembled] = []

    def slow_start() -> Assembled:
        options = RunOptions(workspace=workspace, fake_responses=_demo_script())
        built.append(build_session(Settings(), options, trusted=False))
        release.wait(30)
        return built[0]

    app = GemtuiApp(
        settings=Settings(), session=None, workspace=workspace, session_factory=slow_start
    )
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        while not built:  # the store is open in the thread, not yet handed over
            await pilot.pause(0.01)
        assert app.controller.store is None
        app.run_slash("/sessions")
        await pilot.pause()
        notes = [n.message for n in app._notifications]
        assert any("still opening" in n for n in notes), notes
        assert not any("could not be opened" in n for n in notes), notes
        release.set()
        await engine_started(app, seen)
        assert app.controller.store is built[0].store
        assert app.session is built[0].session
    app.close_store()


def _demo_script() -> str:
    from gemtui.tui.screens.welcome import DEMO_SCRIPT

    return str(DEMO_SCRIPT)
