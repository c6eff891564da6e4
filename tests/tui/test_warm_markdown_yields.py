"""The Markdown warm-up never runs on while a prompt is being sent (issue 34).

The engine thread loads Rich's Markdown once the engine is handed over, so the first
answer's first line does not wait for it; but a person pressing Enter just then had the
send path share the interpreter with 40-230 ms of imports. The warm-up now runs in slices
and stops at the first one after a prompt is on its way.

The hold is the test's: the warm-up waits at a gate (in the engine thread) until the test
has pressed Enter, then runs the real one with the app's own ``busy``.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.ui_choice import read_ui_choice
from gemtui.testing import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from gemtui.tui.widgets import markdown_look
from tests.integration.helpers import write_fast_config
from tests.tui.helpers import Messages


@dataclass
class HeldWarmUp:
    """The warm-up held at a gate; ``done`` says whether every slice ran."""

    gate: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)
    done: list[bool] = field(default_factory=list)


@pytest.fixture
def held_warm_up(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldWarmUp]:
    held = HeldWarmUp()
    real = markdown_look.warm_markdown

    def warm(busy: Callable[[], bool] = lambda: False) -> bool:
        held.gate.wait()
        try:
            held.done.append(real(busy))
        finally:  # a warm-up that failed still ends the wait
            held.finished.set()
        return held.done[-1]

    monkeypatch.setattr(markdown_look, "warm_markdown", warm)
    try:
        yield held
    finally:
        held.gate.set()


@pytest.fixture
def app(
    mock_llm: MockLLMServer, isolated_home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> GemtuiApp:
    write_fast_config(isolated_home)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm.url)
    made = build_app(
        None, RunOptions(workspace=workspace), ui=read_ui_choice(workspace, trusted=False)
    )
    assert isinstance(made, GemtuiApp)
    return made


async def test_enter_stops_the_warm_up_before_its_next_slice(
    app: GemtuiApp, mock_llm: MockLLMServer, held_warm_up: HeldWarmUp
) -> None:
    mock_llm.enqueue({"text": "First answer.", "fault": "hold", "after_chunks": 0})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        while app.session is None or app.controller.session_factory is not None:
            await pilot.pause()  # the engine is handed over; its warm-up waits at the gate
        await pilot.press(*"hello", "enter")
        assert app.turn_running or list(app.queued) == ["hello"]  # on its way
        held_warm_up.gate.set()
        while not held_warm_up.finished.is_set():
            await pilot.pause()
        mock_llm.release()  # the answer was held: the prompt was being sent throughout
        await seen.wait_event(AgentFinished)
    assert held_warm_up.done == [False], "it stopped: a prompt was being sent"


async def test_control_with_nobody_typing_the_warm_up_runs_whole(
    app: GemtuiApp, held_warm_up: HeldWarmUp
) -> None:
    held_warm_up.gate.set()
    async with app.run_test(size=(120, 30)) as pilot:
        while not held_warm_up.finished.is_set():
            await pilot.pause()
    assert held_warm_up.done == [True]


_PROBE = """
import sys
from gemtui.tui.widgets.markdown_look import {warm}
asked = []
def busy():
    asked.append(1)
    return len(asked) > {slices}
print({warm}(busy), len(asked), "rich.markdown" in sys.modules)
from pygments.lexers.python import PythonLexer
print("compiled" if "_tokens" in vars(PythonLexer) else "not compiled")
"""


def _probe(warm: str, slices: int) -> tuple[str, str]:
    """What ``warm`` says and loads in a fresh interpreter (nothing loaded yet)."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(warm=warm, slices=slices)],
        capture_output=True,
        text=True,
        check=True,
    )
    said, lexer = out.stdout.split("\n")[-3:-1]
    return said, lexer


@pytest.mark.parametrize(
    ("slices", "expected"),
    [(0, "False 1 False"), (2, "False 3 False"), (99, "True 9 True")],
)
def test_the_warm_up_asks_before_each_slice_and_loads_nothing_after_a_yes(
    slices: int, expected: str
) -> None:
    """A ``busy`` that says yes before the first slice loads nothing of Rich's Markdown;
    one that never does loads it all. The lexers are not its to make."""
    assert _probe("warm_markdown", slices) == (expected, "not compiled")


@pytest.mark.parametrize(
    ("slices", "expected"), [(0, ("False 1", "not compiled")), (99, ("True 5", "compiled"))]
)
def test_the_lexers_are_made_only_while_nobody_is_busy(
    slices: int, expected: tuple[str, str]
) -> None:
    said, lexer = _probe("warm_lexers", slices)
    assert (said.rsplit(" ", 1)[0], lexer) == expected


async def test_the_warm_up_comes_before_the_store_opens(
    app: GemtuiApp, held_warm_up: HeldWarmUp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first answer's first line needs Rich's Markdown; the first prompt does not need
    the store (its events wait for it). Opened first, the store (and the UI thread's turn
    to take it) held the warm-up back until a person had often pressed Enter already."""
    from gemtui.agent.store_attachment import StoreAttachment

    order: list[str] = []
    real_open = StoreAttachment.open

    def opened(self: StoreAttachment) -> None:
        order.append("store")
        real_open(self)

    monkeypatch.setattr(StoreAttachment, "open", opened)
    real_warm = markdown_look.warm_markdown

    def warm(busy: Callable[[], bool] = lambda: False) -> bool:
        order.append("warm")
        return real_warm(busy)

    monkeypatch.setattr(markdown_look, "warm_markdown", warm)
    held_warm_up.gate.set()
    async with app.run_test(size=(120, 30)) as pilot:
        for _ in range(10_000):  # bounded: a store that never opens fails, not hangs
            if app.controller.store is not None:
                break
            await pilot.pause()
    assert order[:2] == ["warm", "store"]  # (the exit opens it again: a no-op)


async def test_while_the_store_opens_new_and_sessions_wait_for_it(
    app: GemtuiApp, held_warm_up: HeldWarmUp
) -> None:
    """The store opens after the warm-up: meanwhile ``/sessions`` and ``/usage`` say it is
    opening (not that it failed) and ``/new`` waits for it instead of opening a second
    store; once it is open, the new conversation starts (into that store)."""
    from gemtui.tui.store_opening import STILL_OPENING

    async with app.run_test(size=(120, 30)) as pilot:
        while app.session is None or app.controller.session_factory is not None:
            await pilot.pause()  # handed over; the warm-up (and so the store) waits
        first = app.session
        assert app.controller.store is None
        for command in ("/new", "/sessions", "/usage"):
            await pilot.press(*command, "enter")
            await pilot.pause()
        notes = [str(n.message) for n in app._notifications]
        assert notes.count(STILL_OPENING) == 2, notes
        assert app.session is first
        held_warm_up.gate.set()
        for _ in range(10_000):  # bounded: a store that never opens fails, not hangs
            if app.session is not first:
                break
            await pilot.pause()
        assert app.session is not first
        assert app.controller.store is not None
        assert app.controller.assembled is not None
        assert app.controller.assembled.store is app.controller.store  # one store
