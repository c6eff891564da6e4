"""Ctrl+F finds in a long conversation (next, previous, highlighted, "2 of 7"), and Esc
puts the view and the focus back; a mouse selection in the conversation is copied to the
clipboard (Textual's ``copy_to_clipboard``: OSC 52, so over SSH too)."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.widgets.find_bar import FindBar
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done

NEEDLES = (5, 17, 29, 41, 53, 65, 77)


def _long_answer() -> str:
    """Eighty short paragraphs, seven of them saying "needle" (one in capitals)."""
    words = []
    for n in range(80):
        if n in NEEDLES:
            words.append(f"Paragraph {n} hides a {'NEEDLE' if n == 41 else 'needle'} here.")
        else:
            words.append(f"Paragraph {n} is only hay.")
    return "\n\n".join(words)


async def _long_conversation(
    mock_llm: MockLLMServer, workspace: Path
) -> tuple[GemtuiApp, Messages]:
    mock_llm.enqueue({"text": _long_answer()})
    return make_app(make_session(mock_llm.url, workspace), workspace), Messages()


def _line_of(app: GemtuiApp, index: int) -> int:
    return app.main.transcript.matches[index].line


def _count(app: GemtuiApp) -> str:
    return app.main.query_one(FindBar).count_text


async def test_ctrl_f_finds_moves_highlights_and_esc_goes_back(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app, seen = await _long_conversation(mock_llm, workspace)
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        transcript = app.main.transcript
        transcript.scroll_to(y=10, animate=False, immediate=True)  # somewhere up the story
        await pilot.pause()
        before = transcript.scroll_y
        await pilot.press(*"my draft", "home")
        assert app.focused is app.main.prompt
        await pilot.press("ctrl+f", *"needle")
        await pilot.pause()
        assert app.main.prompt.text == "my draft", "Ctrl+F and the search leave the prompt be"
        assert len(transcript.matches) == 7
        first = transcript.current_match
        assert _count(app) == f"{first + 1} of 7"
        assert transcript.scroll_y <= _line_of(app, first) < transcript.scroll_y + 28

        await pilot.press("enter")
        assert transcript.current_match == (first + 1) % 7
        assert _count(app) == f"{(first + 1) % 7 + 1} of 7"
        await pilot.press("down", "down")
        assert transcript.current_match == (first + 3) % 7
        await pilot.press("up")
        assert transcript.current_match == (first + 2) % 7
        await pilot.press("shift+enter")
        assert transcript.current_match == (first + 1) % 7
        for _ in range(7):  # round the end and back
            await pilot.press("enter")
        assert transcript.current_match == (first + 1) % 7
        await pilot.pause()
        line = _line_of(app, transcript.current_match)
        assert transcript.scroll_y <= line < transcript.scroll_y + 28, "the match is in view"

        match = transcript.matches[transcript.current_match]
        strip = transcript.render_line(line - round(transcript.scroll_y))
        bright = transcript.get_component_rich_style("transcript--find-current").bgcolor
        lit = [seg.text for seg in strip if seg.style is not None and seg.style.bgcolor == bright]
        assert "".join(lit).casefold() == "needle", lit
        assert match.end - match.start == len("needle")

        await pilot.press("escape")
        await pilot.pause()
        assert not app.main.query(FindBar)
        assert transcript.scroll_y == before, "Esc goes back to where you were"
        assert app.focused is app.main.prompt
        assert app.main.prompt.text == "my draft"
        assert transcript.matches == ()
        assert app.turn_running is False, "Esc closed the bar and cancelled nothing"


async def test_no_match_says_so(mock_llm: MockLLMServer, workspace: Path) -> None:
    app, seen = await _long_conversation(mock_llm, workspace)
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.press("ctrl+f", *"haystack")
        await pilot.pause()
        assert _count(app) == "no match"


async def test_a_mouse_selection_in_the_conversation_is_copied(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app, seen = await _long_conversation(mock_llm, workspace)
    written: list[str] = []
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        transcript = app.main.transcript
        lines = transcript.text_lines()
        top = round(transcript.scroll_y)
        row = next(y for y in range(28) if "is only hay" in lines[top + y])
        text = lines[top + row]
        start = text.index("Paragraph")
        driver = app._driver
        assert driver is not None
        real_write = driver.write
        driver.write = lambda data: (written.append(data), real_write(data))[1]  # type: ignore[method-assign]
        await pilot.hover(transcript, offset=(start + 1, row))  # the pointer arrives first
        await pilot.pause()
        # the padding is one cell (columns on screen one to the right); the end cell is in
        await pilot.mouse_down(transcript, offset=(start + 1, row))
        await pilot.hover(transcript, offset=(start + len("Paragraph"), row))
        await pilot.mouse_up(transcript, offset=(start + len("Paragraph"), row))
        await pilot.pause()
        assert app.clipboard == "Paragraph"
        assert any(n.message == "Copied 9 characters." for n in app._notifications)
        assert any("\x1b]52;c;" in chunk for chunk in written), "OSC 52 reached the terminal"
