"""The first prompt never waits for the session store to open (issue 34).

A person at the screen starts a new session: its store (SQLite, and the imports behind
it) opens once the session is handed over, in the engine's thread. What the bus says
meanwhile (the session's start, the prompt, the answer) waits in order and is written
when the store is open; the fleet's agent row waits for it too. Quitting first loses
nothing: the store is opened then and everything that waited is written.

The hold is the test's: opening the store in the engine's thread waits at a gate the test
opens (the exit's own opening, on the main thread, is not held).
"""

from __future__ import annotations

import asyncio
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual.pilot import Pilot

from gemtui.agent.assembly import RunOptions, build_session, trusted_run
from gemtui.agent.store_attachment import StoreAttachment
from gemtui.bus.events import AgentFinished
from gemtui.config.ui_choice import read_ui_choice
from gemtui.store import SessionStore
from gemtui.store.agents import recent_agents
from gemtui.testing import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from gemtui.tui.ui_first import UI_SWITCH_INTERVAL
from tests.integration.helpers import FAST_NETWORK, write_fast_config
from tests.tui.helpers import Messages


@dataclass
class HeldStore:
    """Opening the store off the main thread, held at a gate until ``release``."""

    entered: threading.Event = field(default_factory=threading.Event)
    gate: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def held_store(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldStore]:
    from gemtui.agent import store_attachment

    held = HeldStore()
    real = store_attachment.attach_store

    def attach(*args: object, **kwargs: object) -> StoreAttachment:
        if threading.current_thread() is not threading.main_thread():
            held.entered.set()
            held.gate.wait()
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_attachment, "attach_store", attach)
    try:
        yield held
    finally:
        held.release()  # never leave an opening blocked behind a failed test


@pytest.fixture
def app(
    mock_llm: MockLLMServer, isolated_home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> GemtuiApp:
    """The app as ``gemtui`` builds it, against the mock (a held answer is waited for a
    minute, not the fast config's 2 s: a loaded machine takes longer between two steps)."""
    patient = FAST_NETWORK.replace("read_timeout = 2.0", "read_timeout = 60.0")
    assert patient != FAST_NETWORK
    (isolated_home / "config").mkdir(parents=True, exist_ok=True)
    (isolated_home / "config" / "config.toml").write_text(patient, encoding="utf-8")
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm.url)
    ui = read_ui_choice(workspace, trusted=False)
    made = build_app(None, RunOptions(workspace=workspace), ui=ui)
    assert isinstance(made, GemtuiApp)
    return made


async def _first_prompt_while_the_store_is_held(
    app: GemtuiApp, pilot: Pilot[int], seen: Messages, held: HeldStore, mock: MockLLMServer
) -> str:
    """Type and send a prompt, answered while opening the store is held; its session id."""
    await asyncio.to_thread(held.entered.wait)  # the store is being opened
    assert app.session is not None, "the session was handed over before the store opened"
    await pilot.press(*"hello", "enter")
    await seen.wait_event(AgentFinished)
    assert len(mock.requests) == 1, "the request left while the store was held"
    assert app.session is not None
    assert app.controller.store is None
    with SessionStore() as store:  # nothing is written yet: it waits
        assert store.get(app.session.id) is None
    assert app.desk is None  # its row waits for the store too
    return app.session.id


def _saved(session_id: str, workspace: Path) -> tuple[list[tuple[str, str]], list[str]]:
    with SessionStore() as store:
        history = store.load_history(session_id)
        agents = [row.session_id for row in recent_agents(store, str(workspace))]
    return [(c.role or "", c.parts[0].text or "") for c in history], agents


async def test_the_first_prompt_is_answered_while_the_store_opens_then_all_is_saved_in_order(
    app: GemtuiApp, mock_llm: MockLLMServer, workspace: Path, held_store: HeldStore
) -> None:
    mock_llm.enqueue({"text": "First answer."})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        session_id = await _first_prompt_while_the_store_is_held(
            app, pilot, seen, held_store, mock_llm
        )
        held_store.release()
        while app.controller.store is None or app.desk is None:
            await pilot.pause()  # opened: what waited is written, the fleet starts
        history, agents = _saved(session_id, workspace)
        assert history == [("user", "hello"), ("model", "First answer.")]
        assert agents == [session_id]
        assert app.controller.resume_hint is not None  # a saved session says how to return
    app.close_store()


async def test_quitting_before_the_store_opened_loses_nothing(
    app: GemtuiApp, mock_llm: MockLLMServer, workspace: Path, held_store: HeldStore
) -> None:
    mock_llm.enqueue({"text": "First answer."})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        session_id = await _first_prompt_while_the_store_is_held(
            app, pilot, seen, held_store, mock_llm
        )
        app.close_store()  # as ``launch_tui`` does on quitting: the engine's opening still held
        history, _agents = _saved(session_id, workspace)
        assert history == [("user", "hello"), ("model", "First answer.")]
        held_store.release()  # the held opening ends late: it closes what it opened
    assert app.controller.store is None


async def test_control_a_build_without_a_screen_waits_for_the_held_store(
    isolated_home: Path, workspace: Path, held_store: HeldStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hold holds: the build a headless run uses opens the store inside the build,
    so it returns only after the release, with the store open."""
    write_fast_config(isolated_home)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")  # never asked
    run = trusted_run(RunOptions(workspace=workspace, interactive=False))
    building = asyncio.ensure_future(
        asyncio.to_thread(build_session, run.settings(), run.options, trusted=False)
    )
    await asyncio.to_thread(held_store.entered.wait)
    assert not building.done()  # held inside the build
    held_store.release()
    built = await building
    try:
        assert built.store is not None
    finally:
        await built.session.aclose()
        built.close()


_BUILD = """
import sys
from pathlib import Path
from gemtui.agent.assembly import RunOptions, trusted_run
run = trusted_run(RunOptions(workspace=Path(sys.argv[1])))
built = run.build(run.settings(), at_screen=sys.argv[2] == "screen")
print("gemtui.store" in sys.modules)
"""


@pytest.mark.parametrize(("where", "loaded"), [("screen", "False"), ("headless", "True")])
def test_the_store_modules_load_after_the_build_at_a_screen(
    isolated_home: Path, workspace: Path, where: str, loaded: str
) -> None:
    """At a screen the build does not even import the store (SQLite, its schema): that
    happens once the session is handed over. The control: a headless build does."""
    env = {**os.environ, "GEMINI_API_KEY": "test-key"}
    out = subprocess.run(
        [sys.executable, "-c", _BUILD, str(workspace), where],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert out.stdout.split("\n")[-2] == loaded


@dataclass
class EngineSteps:
    """What the engine's thread does after the hand-over, in order ("waits" for the
    first turn, "opened" the store, made the "lexers"); its Markdown warm-up ends once
    ``typed`` is set."""

    typed: threading.Event = field(default_factory=threading.Event)
    next: queue.Queue[str] = field(default_factory=queue.Queue)

    async def step(self) -> str:
        return await asyncio.to_thread(self.next.get, timeout=60)


@pytest.fixture
def engine_steps(app: GemtuiApp, monkeypatch: pytest.MonkeyPatch) -> EngineSteps:
    from gemtui.agent import store_attachment
    from gemtui.tui import after_hand_over
    from gemtui.tui.widgets import markdown_look

    steps = EngineSteps()
    monkeypatch.setattr(after_hand_over, "TURN_WAIT", 3600.0)  # only the turn's end opens it

    def warm(busy: object) -> bool:
        steps.typed.wait()
        return False

    real = store_attachment.attach_store

    def attach(*args: object, **kwargs: object) -> StoreAttachment:
        if threading.current_thread() is not threading.main_thread():
            steps.next.put("opened")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    class TurnOver(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            steps.next.put("waits")
            return super().wait(timeout)

    def lexers(busy: object) -> bool:
        steps.next.put("lexers")
        return True

    monkeypatch.setattr(markdown_look, "warm_markdown", warm)
    monkeypatch.setattr(markdown_look, "warm_lexers", lexers)
    monkeypatch.setattr(store_attachment, "attach_store", attach)
    app.controller.first_turn_over = TurnOver()
    return steps


async def _prompt_under_way(app: GemtuiApp, pilot: Pilot[int], mock: MockLLMServer) -> None:
    while app.session is None:
        await pilot.pause()
    await pilot.press(*"hello", "enter")
    while not mock.requests:
        await pilot.pause()


async def test_a_first_prompt_on_its_way_opens_the_store_only_after_its_turn(
    app: GemtuiApp, mock_llm: MockLLMServer, workspace: Path, engine_steps: EngineSteps
) -> None:
    """SQLite's open and schema check share the interpreter with the request and the first
    lines: when the engine's thread comes to open the store while a first prompt is under
    way, it waits for that turn's end. The control (opening at once) shows as "opened"
    before "waits"."""
    mock_llm.enqueue({"text": "First answer.", "fault": "hold", "after_chunks": 1})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await _prompt_under_way(app, pilot, mock_llm)
        engine_steps.typed.set()
        assert await engine_steps.step() == "waits"
        assert app.controller.store is None
        mock_llm.release()
        await seen.wait_event(AgentFinished)
        assert await engine_steps.step() == "opened"
        while app.controller.store is None:
            await pilot.pause()
        assert app.session is not None
        history, _agents = _saved(app.session.id, workspace)
        assert history == [("user", "hello"), ("model", "First answer.")]
    app.close_store()


async def test_a_prompt_being_written_holds_the_store_and_the_lexers_until_its_turn_ends(
    app: GemtuiApp, mock_llm: MockLLMServer, engine_steps: EngineSteps
) -> None:
    """Text in the prompt means a send may come any moment: the store's opening and the
    lexers (slices that cannot stop halfway) wait for the first turn's end, so the Enter
    does not share the interpreter with them. The control: nothing written, they go on."""
    mock_llm.enqueue({"text": "First answer."})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        while app.session is None:
            await pilot.pause()
        await pilot.press(*"hello")  # written, not sent
        engine_steps.typed.set()
        assert await engine_steps.step() == "waits"
        assert app.controller.store is None
        assert sys.getswitchinterval() > UI_SWITCH_INTERVAL  # a wait holds nothing
        await pilot.press("enter")
        await seen.wait_event(AgentFinished)
        assert [await engine_steps.step(), await engine_steps.step()] == ["opened", "lexers"]
    app.close_store()


async def test_a_prompt_counts_as_written_until_it_is_submitted(
    app: GemtuiApp, mock_llm: MockLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt is cleared just before it is submitted: that clear must not say "nobody
    is writing", or start-up's rest would start the store or a lexer at the very Enter."""
    at_submit: list[bool] = []
    real = GemtuiApp.submit

    def submit(self: GemtuiApp, text: str) -> None:
        at_submit.append(self.controller.drafting)
        real(self, text)

    monkeypatch.setattr(GemtuiApp, "submit", submit)
    mock_llm.enqueue({"text": "First answer."})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        while app.session is None:
            await pilot.pause()
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
        assert at_submit == [True]
        assert not app.controller.drafting  # sent: the turn said so, now it has ended
    app.close_store()


async def test_control_with_nothing_written_the_store_and_the_lexers_go_on(
    app: GemtuiApp, engine_steps: EngineSteps
) -> None:
    async with app.run_test(size=(120, 30)) as pilot:
        while app.session is None:
            await pilot.pause()
        engine_steps.typed.set()
        assert [await engine_steps.step(), await engine_steps.step()] == ["opened", "lexers"]
    app.close_store()


async def test_quitting_while_the_store_waits_for_the_first_turn_loses_nothing(
    app: GemtuiApp, mock_llm: MockLLMServer, workspace: Path, engine_steps: EngineSteps
) -> None:
    """Quitting mid-answer does not wait for a turn that will never end (the wait is an
    hour here: an exit that waited would time the test out), and the prompt is saved."""
    mock_llm.enqueue({"text": "Never finished.", "fault": "hold", "after_chunks": 0})
    async with app.run_test(size=(120, 30)) as pilot:
        await _prompt_under_way(app, pilot, mock_llm)
        engine_steps.typed.set()
        assert await engine_steps.step() == "waits"
        assert app.session is not None
        session_id = app.session.id
        app.exit()
    assert await engine_steps.step() == "opened"  # the wait ended with the app
    app.close_store()  # as ``launch_tui`` does after the app ends
    mock_llm.release()
    history, _agents = _saved(session_id, workspace)
    assert history[0] == ("user", "hello")


async def test_a_command_that_needs_the_store_opens_it_without_waiting_for_the_turn(
    app: GemtuiApp, mock_llm: MockLLMServer, engine_steps: EngineSteps
) -> None:
    """``/sessions`` typed while the store waits for the first turn opens it now (the turn
    is still held here), and says meanwhile that it is opening; asking whether the store
    is opening (the status a screen reads) hurries nothing."""
    from gemtui.tui.store_opening import STILL_OPENING, store_opening

    mock_llm.enqueue({"text": "Held.", "fault": "hold", "after_chunks": 1})
    notes: list[str] = []
    async with app.run_test(size=(120, 30)) as pilot:
        real_notify = app.notify

        def notify(message: str, **kwargs: object) -> None:
            notes.append(message)
            real_notify(message, **kwargs)  # type: ignore[arg-type]

        app.notify = notify  # type: ignore[method-assign]
        await _prompt_under_way(app, pilot, mock_llm)
        engine_steps.typed.set()
        assert await engine_steps.step() == "waits"
        assert store_opening(app.controller)
        assert not app.controller.first_turn_over.is_set()  # the query alone hurries nothing
        await pilot.press(*"/sessions", "enter")
        assert await engine_steps.step() == "opened"
        assert app.turn_running  # opened before the turn's end
        assert STILL_OPENING in notes
        mock_llm.release()
    app.close_store()


async def test_the_engine_thread_hands_the_interpreter_back_quickly_until_it_is_done(
    app: GemtuiApp, held_store: HeldStore
) -> None:
    """While the engine's thread works after the first frame (held here in the store's
    opening, its last step), a thread waiting for the interpreter waits at most 0.5 ms
    (a prompt sent meanwhile: issue 34); once it is done the interval is the one before."""
    before = sys.getswitchinterval()
    assert before > UI_SWITCH_INTERVAL  # the control: Python's own 5 ms
    async with app.run_test(size=(120, 30)) as pilot:
        await asyncio.to_thread(held_store.entered.wait)
        assert sys.getswitchinterval() == UI_SWITCH_INTERVAL
        held_store.release()
        while app.controller.store is None:
            await pilot.pause()
        for worker in app.workers:
            if worker.name == "engine-start":
                await worker.wait()
        assert sys.getswitchinterval() == before
    app.close_store()
