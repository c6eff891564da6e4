"""A prompt typed while the engine starts leaves before the fleet starts, and the panes
are mounted once the engine is built, not while it loads (issue 34).

On a slow machine the fleet's start (the engine's ``Fleet``, its adapter, the desk: 60-90
ms on the UI thread) ran between the session's start and the queued prompt's request.
Now the request leaves first; the fleet starts once that prompt ended (or when the agent
view asks for it first), with what the prompt spent counted in the agent's row, and the
row saved for ``gemtui agents`` as before.

The hold is the test's: the engine's build waits at a gate (its first step, in the build
thread) until the prompt is typed, and the model's answer is held by the mock until the
test has looked at the app while the request is in.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual.pilot import Pilot

from gemtui.agent.assembly import RunOptions
from gemtui.agent.session import Session
from gemtui.bus.events import AgentFinished
from gemtui.config.ui_choice import read_ui_choice
from gemtui.providers import tls_prefetch
from gemtui.store import SessionStore
from gemtui.store.agents import recent_agents
from gemtui.testing import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from gemtui.tui.screens.agents import AgentsScreen
from gemtui.tui.screens.main import MainScreen
from gemtui.tui.session_host import SessionController
from gemtui.tui.widgets.transcript_blocks import AnswerBlock
from tests.integration.helpers import write_fast_config
from tests.tui.helpers import Messages


@dataclass
class HeldBuild:
    """The engine's build held at a gate until ``release``."""

    entered: threading.Event = field(default_factory=threading.Event)
    gate: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def held_build(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldBuild]:
    held = HeldBuild()
    real = tls_prefetch.prefetch_tls

    def prefetch() -> None:
        held.entered.set()
        held.gate.wait()
        real()

    monkeypatch.setattr(tls_prefetch, "prefetch_tls", prefetch)
    try:
        yield held
    finally:
        held.release()  # never leave a build blocked behind a failed test


@pytest.fixture
def app(
    mock_llm: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> GemtuiApp:
    """The app as ``gemtui`` builds it, against the mock."""
    write_fast_config(isolated_home)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm.url)
    made = build_app(
        None, RunOptions(workspace=workspace), ui=read_ui_choice(workspace, trusted=False)
    )
    assert isinstance(made, GemtuiApp)
    return made


async def _until(pilot: Pilot[int], done: object) -> None:
    """Let the app run until ``done()`` holds (a condition, never a duration)."""
    assert callable(done)
    while not done():
        await pilot.pause()


def _saved_agents(workspace: Path) -> list[tuple[str, int]]:
    with SessionStore() as store:
        return [(row.session_id, row.tokens) for row in recent_agents(store, str(workspace))]


async def test_a_prompt_typed_while_the_engine_starts_leaves_before_the_fleet_starts(
    app: GemtuiApp, mock_llm: MockLLMServer, workspace: Path, held_build: HeldBuild
) -> None:
    mock_llm.enqueue({"text": "First answer.", "fault": "hold", "after_chunks": 0})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await asyncio.to_thread(held_build.entered.wait)  # the engine is being built
        await pilot.press(*"hello", "enter")
        assert list(app.queued) == ["hello"]  # typed before the engine was there: queued
        held_build.release()
        await _until(pilot, lambda: len(mock_llm.requests) == 1)
        # the request is in, its answer held: the fleet has not started yet
        assert app.desk is None
        assert app.fleet_later is not None
        assert app.session is not None
        assert _saved_agents(workspace) == []
        mock_llm.release()
        await seen.wait_event(AgentFinished)
        await _until(pilot, lambda: app.desk is not None)  # the prompt ended: it starts
        assert app.desk is not None
        assert [(row.id, row.state) for row in app.desk.rows] == [("a1", "idle")]
        tokens = app.desk.fleet.fleet.get("a1").tokens  # type: ignore[attr-defined]
        assert tokens > 0, "what the first prompt spent is in the agent's row"
        assert app.fleet_later is None
        session_id = app.session.id
    assert _saved_agents(workspace) == [(session_id, tokens)]  # listed for `gemtui agents`
    with SessionStore() as store:  # the session and its messages are saved as before
        history = store.load_history(session_id)
    assert [c.role for c in history] == ["user", "model"]
    assert history[0].parts[0].text == "hello"


async def test_the_agent_view_starts_the_fleet_while_the_first_prompt_runs(
    app: GemtuiApp, mock_llm: MockLLMServer, held_build: HeldBuild
) -> None:
    mock_llm.enqueue({"text": "First answer.", "fault": "hold", "after_chunks": 0})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await asyncio.to_thread(held_build.entered.wait)
        await pilot.press(*"hello", "enter")
        held_build.release()
        await _until(pilot, lambda: len(mock_llm.requests) == 1)
        assert app.desk is None
        await pilot.press("f5")  # asked for before the prompt ended: the fleet starts now
        # (the store, which waits for the first turn to end, opens at once and the view
        # with it: the engine's thread opens SQLite, so the test waits for that)
        await _until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        assert app.desk is not None
        assert [row.id for row in app.desk.rows] == ["a1"]
        mock_llm.release()
        await seen.wait_event(AgentFinished)
        desk = app.desk
        await pilot.press("escape")
        assert app.desk is desk  # started once


async def test_control_with_no_prompt_waiting_the_fleet_starts_with_the_session(
    app: GemtuiApp, mock_llm: MockLLMServer, held_build: HeldBuild
) -> None:
    """The observation works: when nothing waits at the session's start, the fleet
    starts with it, before any request (as it always did)."""
    mock_llm.enqueue({"text": "First answer."})
    async with app.run_test(size=(120, 30)) as pilot:
        held_build.release()
        await _until(pilot, lambda: app.desk is not None)
        assert mock_llm.requests == []
        assert app.fleet_later is None


async def test_the_panes_are_mounted_once_the_engine_is_built_not_while_it_loads(
    app: GemtuiApp, held_build: HeldBuild
) -> None:
    """Mounted while the engine loaded (its first frame done), they took the interpreter
    from its imports on a slow machine and delayed the first request."""
    async with app.run_test(size=(120, 30)) as pilot:
        await asyncio.to_thread(held_build.entered.wait)  # drawn; the engine is loading
        for _ in range(3):
            await pilot.pause()
        assert not app.main.panes_mounted
        held_build.release()
        await _until(pilot, lambda: app.session is not None)
        await app.main.panes_ready()
        assert app.main.panes_mounted
        assert app.main.usage.context_window == app.session.context_window


async def test_a_waiting_prompts_turn_starts_before_the_panes_mount(
    app: GemtuiApp,
    mock_llm: MockLLMServer,
    held_build: HeldBuild,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    order: list[str] = []
    fill, send = MainScreen._fill_panes, Session.send

    def filled(screen: MainScreen) -> None:
        order.append("panes")
        fill(screen)

    async def sent(session: Session, text: str, **kwargs: object) -> None:
        order.append("send")
        await send(session, text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MainScreen, "_fill_panes", filled)
    monkeypatch.setattr(Session, "send", sent)
    mock_llm.enqueue({"text": "First answer."})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await asyncio.to_thread(held_build.entered.wait)
        await pilot.press(*"hello", "enter")
        held_build.release()
        await seen.wait_event(AgentFinished)
        await app.main.panes_ready()
        assert order[:2] == ["send", "panes"]
        assert len(mock_llm.requests) == 1
        blocks = app.main.transcript._blocks.blocks  # drawn once the panes are in
        assert [b.text for b in blocks if isinstance(b, AnswerBlock)] == ["First answer."]


async def test_a_slash_command_given_as_the_first_prompt_finds_the_panes(
    mock_llm: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    held_build: HeldBuild,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``gemtui "/new"``: the command clears the panes, so they are mounted before it runs
    (sent before them, it failed and left the old session running unrecorded)."""
    write_fast_config(isolated_home)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm.url)
    started: list[str] = []
    start = SessionController._start_session

    def recorded(controller: SessionController, session: Session) -> None:
        started.append(session.id)
        start(controller, session)

    monkeypatch.setattr(SessionController, "_start_session", recorded)
    options = RunOptions(workspace=workspace, prompt="/new")
    app = build_app(None, options, ui=read_ui_choice(workspace, trusted=False))
    assert isinstance(app, GemtuiApp)
    async with app.run_test(size=(120, 30)) as pilot:
        await asyncio.to_thread(held_build.entered.wait)
        held_build.release()
        await _until(pilot, lambda: len(started) == 2)  # the built one, then /new's
        await pilot.pause()
        errors = [str(n.message) for n in app._notifications if n.severity == "error"]
        assert errors == []
        assert app.main.panes_mounted
        assert app.session is not None
        assert app.session.id == started[1] != started[0]
        # the new session's events reach the screen (the old session's bridge, started
        # after the command had run, replaced the new one's and the answer never showed)
        mock_llm.enqueue({"text": "The second session answers."})
        await pilot.press(*"hi", "enter")
        await _until(pilot, lambda: "second session answers" in app.main.transcript.answer_text())
