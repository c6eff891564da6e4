"""Vim keys in the prompt (issue 38, item 2): ``/vim`` turns them on (and remembers it),
the status line says NORMAL or INSERT, and the common motions and operators act on the
text and the cursor as in vim. Pilot key presses throughout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.bus.events import AgentFinished
from gemtui.config.paths import user_config_file
from gemtui.config.settings import Settings, UiSettings
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages


def _status(app: Any) -> str:
    return str(app.main.status.render())


def _state(app: Any) -> tuple[str, tuple[int, int]]:
    prompt = app.main.prompt
    return prompt.text, prompt.cursor_location


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


async def test_slash_vim_switches_modes_shown_in_the_status_line_and_remembered(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        assert "INSERT" not in _status(app)
        await pilot.press(*"/vim", "enter")
        await pilot.pause()
        assert "INSERT" in _status(app)
        await pilot.press(*"one two", "escape")
        await pilot.pause()
        assert "NORMAL" in _status(app)
        await pilot.press(*"qzrt")  # not commands here: nothing typed
        assert _state(app) == ("one two", (0, 6))
        await pilot.press("i")
        await pilot.pause()
        assert "INSERT" in _status(app)
        await pilot.press("escape", *"/v!")  # in normal mode these type nothing
        assert app.main.prompt.text == "one two"
    assert "vim_mode = true" in _read(user_config_file())


async def test_motions_move_the_cursor_as_in_vim(mock_llm: MockLLMServer, workspace: Path) -> None:
    app = _vim_app(mock_llm, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"one two.three", "ctrl+j", *"  four five", "escape")
        assert _state(app)[1] == (1, 10)  # Esc steps back onto the last character
        moves = {
            "0": (1, 0),
            "w": (1, 2),
            "e": (1, 5),
            "b": (1, 2),
            "$": (1, 10),
            "k": (0, 10),
            "h": (0, 9),
            "l": (0, 10),
            "j": (1, 10),
            "G": (1, 0),
        }
        for key, where in moves.items():
            await pilot.press(key)
            assert _state(app)[1] == where, key
        await pilot.press("g", "g")
        assert _state(app)[1] == (0, 0)
        await pilot.press("w", "w")  # "two", then "." (punctuation is its own word)
        assert _state(app)[1] == (0, 7)


async def test_operators_change_the_text_and_u_undoes(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = _vim_app(mock_llm, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"one two three", "escape", "0")
        await pilot.press("d", "w")
        assert _state(app) == ("two three", (0, 0))
        await pilot.press("u")
        assert app.main.prompt.text == "one two three"
        await pilot.press("0", "c", "w", *"ONE", "escape")
        assert _state(app) == ("ONE two three", (0, 2))
        await pilot.press("0", "x")
        assert _state(app) == ("NE two three", (0, 0))
        await pilot.press("p")  # the deleted character comes back after the cursor
        assert _state(app) == ("NOE two three", (0, 1))
        await pilot.press("w", "d", "$")
        assert app.main.prompt.text == "NOE "
        await pilot.press("0", "y", "e", "$", "p")
        assert app.main.prompt.text == "NOE NOE"
        await pilot.press("A", *"!", "escape", "I", *">", "escape")
        assert app.main.prompt.text == ">NOE NOE!"


async def test_line_operators_and_opening_lines(mock_llm: MockLLMServer, workspace: Path) -> None:
    app = _vim_app(mock_llm, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"alpha", "ctrl+j", *"beta", "ctrl+j", *"gamma", "escape")
        await pilot.press("g", "g", "d", "d")
        assert _state(app) == ("beta\ngamma", (0, 0))
        await pilot.press("p")  # a deleted line goes below the cursor's line
        assert _state(app) == ("beta\nalpha\ngamma", (1, 0))
        await pilot.press("y", "y", "G", "P")
        assert _state(app) == ("beta\nalpha\nalpha\ngamma", (2, 0))
        await pilot.press("d", "k")
        assert app.main.prompt.text == "beta\ngamma"
        await pilot.press("G", "d", "d")  # the last line: the newline before it goes too
        assert app.main.prompt.text == "beta"
        await pilot.press("o", *"under", "escape", "O", *"between", "escape")
        assert app.main.prompt.text == "beta\nbetween\nunder"
        await pilot.press("c", "c", *"new", "escape")
        assert app.main.prompt.text == "beta\nnew\nunder"
        await pilot.press("g", "g", "c", "j", *"top", "escape")
        assert app.main.prompt.text == "top\nunder"


async def test_enter_in_normal_mode_sends_and_the_next_prompt_starts_typing(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": "Hi."})
    app = _vim_app(mock_llm, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        assert "INSERT" in _status(app)  # [ui] vim_mode = true: on from the start
        await pilot.press(*"hello", "escape", "enter")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert "INSERT" in _status(app)
        await pilot.press(*"next")
        assert app.main.prompt.text == "next"
    assert len(mock_llm.requests) == 1


def _vim_app(mock_llm: MockLLMServer, workspace: Path) -> GemtuiApp:
    return GemtuiApp(
        settings=Settings(ui=UiSettings(vim_mode=True)),
        session=make_session(mock_llm.url, workspace),
        workspace=workspace,
        raise_errors=True,
    )


async def test_esc_to_normal_mode_also_closes_the_completions(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = _vim_app(mock_llm, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/mo")
        await pilot.pause()
        suggestions = app.main.query_one("#suggestions")
        assert suggestions.has_class("-visible")
        await pilot.press("escape")
        await pilot.pause()
        assert not suggestions.has_class("-visible")
        assert "NORMAL" in _status(app)
        assert app.main.prompt.text == "/mo"
