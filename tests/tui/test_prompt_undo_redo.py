"""Undo and redo in the prompt, and Ctrl+Y never loses what was typed (issue 33, item 10).

Ctrl+Z undoes; Ctrl+Shift+Z redoes. Ctrl+Y redoes while the prompt has something undone
to bring back (as in any editor) and is the yolo key otherwise; the yolo question it
then opens takes no typed key as an answer, so the text typed on goes to the prompt.
Typed at a person's pace (keys 120 ms apart: pacing, not synchronisation) and as a burst.

Terminals: Textual reports Ctrl+Shift+Z as ``ctrl+shift+z`` only where the terminal
speaks the kitty keyboard protocol (kitty, WezTerm, foot, Ghostty…); elsewhere (xterm,
VTE terminals, tmux by default) it arrives as the same byte as Ctrl+Z and undoes. There
Ctrl+Y is the redo key, which is why it redoes while there is something to redo.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual._xterm_parser import XTermParser
from textual.pilot import Pilot

from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.dialogs import ConfirmScreen
from tests.tui.conftest import make_app, make_session

PACES = ["person", "burst"]


async def _type(pilot: Pilot[Any], text: str, pace: str) -> None:
    if pace == "burst":
        await pilot.press(*text)
        return
    for key in text:
        await pilot.press(key)
        await pilot.pause(0.12)  # a person's pace between keys, not a wait for anything


def test_what_textual_reports_for_ctrl_shift_z() -> None:
    """The kitty protocol's Ctrl+Shift+Z is its own key; the legacy byte is Ctrl+Z."""
    parser = XTermParser()
    assert [e.key for e in parser.feed("\x1b[122;6u")] == ["ctrl+shift+z"]
    assert [e.key for e in parser.feed("\x1a")] == ["ctrl+z"]
    assert [e.key for e in parser.feed("\x19")] == ["ctrl+y"]


@pytest.mark.parametrize("pace", PACES)
@pytest.mark.parametrize("redo", ["ctrl+shift+z", "ctrl+y"])
async def test_undo_then_redo_brings_the_text_back(
    redo: str, pace: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.main.prompt
        await _type(pilot, "refactor the parser", pace)
        await pilot.press("ctrl+z")
        assert prompt.text != "refactor the parser", "undone"
        await pilot.press(redo)
        assert prompt.text == "refactor the parser", "redone"
        assert app.screen is app.main, "no question opened"
        assert app.session is not None
        assert app.session.approval_mode == "default"


@pytest.mark.parametrize("pace", PACES)
async def test_ctrl_y_past_the_last_redo_asks_and_typing_on_loses_nothing(
    pace: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.main.prompt
        await _type(pilot, "hello", pace)
        await pilot.press("ctrl+z", "ctrl+y")
        assert prompt.text == "hello"
        await pilot.press("ctrl+y")  # one too many: nothing to redo, so the yolo key
        assert isinstance(app.screen, ConfirmScreen)
        await _type(pilot, " yes world", pace)
        assert isinstance(app.screen, ConfirmScreen)
        assert prompt.text == "hello yes world", "typed on, nothing lost"
        assert app.session is not None
        assert app.session.approval_mode == "default"
        await pilot.press("escape")
        assert app.screen is app.main
        assert prompt.text == "hello yes world"
        assert app.session.approval_mode == "default"


async def test_ctrl_y_on_an_empty_prompt_is_the_yolo_key(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("f8", "y")
        assert app.session is not None
        assert app.session.approval_mode == "yolo"
        await pilot.press(*"abc", "ctrl+z", "ctrl+y")  # redo first, the mode untouched
        assert app.main.prompt.text == "abc"
        assert app.session.approval_mode == "yolo"
        await pilot.press("ctrl+y")  # nothing left to redo: yolo off (no question)
        assert app.session.approval_mode == "default"
        assert app.main.prompt.text == "abc"


async def test_f1_help_says_how_undo_redo_and_ctrl_y_work(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f1")
        text = app.help_text()
        assert "Ctrl+Z undo · Ctrl+Shift+Z redo" in text
        assert "Ctrl+Y redoes too" in text
        assert "while the prompt has something to redo" in text
        assert "F8, then y" in text
