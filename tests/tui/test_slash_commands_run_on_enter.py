"""A slash command runs on one Enter when its name (or argument) is complete, and keys that
arrive in a burst (fast typing, a paste) are read against the text they follow, never
against completions computed for an earlier state of the prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.config.settings import Settings
from gemtui.providers.replay import ReplayGenerator
from tests.tui.conftest import make_app
from tests.tui.helpers import transcript_notices


def _session(workspace: Path) -> Session:
    provider = ResolvedProvider(
        "replay", "replay", ReplayGenerator([]), "gemini-2.5-flash", 1_048_576
    )
    return Session(Settings(), provider, SessionOptions(workspace=workspace))


def _notices(app: Any) -> list[str]:
    """Toasts, and the reports written into the conversation."""
    return [str(n.message) for n in app._notifications] + transcript_notices(app)


def burst(app: Any, keys: str) -> None:
    """Hand the terminal driver every key at once, as a fast typist or a paste does
    (Pilot's ``press`` waits for the app to go idle after each key)."""
    for ch in keys:
        key = "enter" if ch == "\n" else "space" if ch == " " else ch
        char = "\r" if ch == "\n" else ch
        if ch == "/":
            key = "slash"
        elif ch == "-":
            key = "minus"
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)


async def test_an_exact_command_name_runs_on_the_first_enter(workspace: Path) -> None:
    app = make_app(_session(workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/stats", "enter")
        await pilot.pause()
        assert app.main.prompt.text == ""
        assert any("model turns" in t for t in _notices(app))


async def test_copy_with_enter_twice_copies_once_and_never_becomes_copy_code(
    workspace: Path,
) -> None:
    app = make_app(_session(workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/copy", "enter")
        await pilot.pause()
        assert app.main.prompt.text == ""
        assert any("no answer to copy" in t for t in _notices(app))
        await pilot.press("enter")  # the second Enter of habit sends nothing
        await pilot.pause()
        assert not any("code block" in t for t in _notices(app))


async def test_a_partial_name_completes_first_then_runs(workspace: Path) -> None:
    app = make_app(_session(workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/sta", "enter")
        await pilot.pause()
        assert app.main.prompt.text == "/stats "
        assert not any("model turns" in t for t in _notices(app))
        await pilot.press("enter")
        await pilot.pause()
        assert any("model turns" in t for t in _notices(app))


async def test_an_exact_argument_runs_on_enter(workspace: Path) -> None:
    app = make_app(_session(workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/copy code", "enter")
        await pilot.pause()
        assert app.main.prompt.text == ""
        assert any("no code block to copy" in t for t in _notices(app))


async def test_two_commands_typed_in_one_burst_both_run_as_typed(workspace: Path) -> None:
    app = make_app(_session(workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/theme gemtui-")  # completions for this are on screen
        await pilot.pause()
        burst(app, "light\n/sessions\n")
        for _ in range(10):
            await pilot.pause()
        assert app.theme == "gemtui-light"
        texts = _notices(app)
        assert not any("No theme named" in t for t in texts), texts
        assert any("session store could not be opened" in t for t in texts), texts
        assert app.main.prompt.text == ""


async def test_a_burst_with_a_partial_argument_is_not_completed_behind_the_typist(
    workspace: Path,
) -> None:
    """Completions computed for ``/theme gemtui-l`` must not be applied to the Enter that
    follows ``/theme gemtui-light``: the command runs with what was typed."""
    app = make_app(_session(workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/theme gemtui-l")
        await pilot.pause()
        burst(app, "ight\n")
        for _ in range(10):
            await pilot.pause()
        assert app.theme == "gemtui-light"
        assert app.main.prompt.text == ""
