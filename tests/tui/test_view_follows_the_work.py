"""The view follows the work: a new prompt or an approval request brings the end back into
view even after the person scrolled up, and PageUp/PageDown/Home/End scroll the transcript
from the prompt, at once (no animation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.transcript import Transcript
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done

LONG = "\n\n".join(f"Paragraph {n} of a long answer." for n in range(80))


def shown(transcript: Transcript) -> str:
    return "\n".join(transcript.render_line(y).text for y in range(transcript.size.height))


async def settle(pilot: Any, app: Any) -> None:
    await turns_done(app)
    for _ in range(4):
        await pilot.pause()


async def _long_answer_then_scroll_up(pilot: Any, app: Any, seen: Messages) -> Transcript:
    await pilot.press(*"tell me a lot", "enter")
    await seen.wait_event(AgentFinished)
    await settle(pilot, app)
    transcript: Transcript = app.main.transcript
    assert "Paragraph 79" in shown(transcript)
    await pilot.press("pageup", "pageup")  # from the prompt: no Tab first
    await pilot.pause()
    assert app.focused is app.main.prompt
    assert not transcript.follow
    assert "Paragraph 79" not in shown(transcript)
    return transcript


async def test_a_new_prompt_brings_the_view_back_to_the_end(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": LONG}, {"text": "the second answer"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        transcript = await _long_answer_then_scroll_up(pilot, app, seen)
        mark = len(seen.seen)
        await pilot.press(*"and now?", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await settle(pilot, app)
        assert transcript.follow
        text = shown(transcript)
        assert "and now?" in text
        assert "the second answer" in text


async def test_an_approval_request_brings_the_call_into_view(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "g.txt").write_text("hello world\n")
    args = {"file_path": "g.txt", "instruction": "i", "old_string": "world", "new_string": "x"}
    mock_llm.enqueue(
        {"text": LONG}, {"function_calls": [{"name": "replace", "args": args}]}, {"text": "ok"}
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        transcript = await _long_answer_then_scroll_up(pilot, app, seen)
        app.main.prompt.text = "edit g.txt"
        app.main.prompt.action_cursor_line_end()
        await pilot.press("enter")
        await seen.wait_approvals(1)
        for _ in range(4):
            await pilot.pause()
        assert transcript.follow
        assert "replace" in shown(transcript), "the card being approved is in view"
        assert transcript.scroll_y == transcript.max_scroll_y
        mark = len(seen.seen)
        app.main.approvals.focus()
        await pilot.press("r")
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
    assert (workspace / "g.txt").read_text() == "hello world\n"


async def test_page_keys_and_home_end_scroll_the_transcript_from_the_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": LONG})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me a lot", "enter")
        await seen.wait_event(AgentFinished)
        await settle(pilot, app)
        transcript = app.main.transcript
        prompt = app.main.prompt
        bottom = transcript.scroll_y
        assert bottom == transcript.max_scroll_y > 0
        await pilot.press("pageup")
        assert transcript.scroll_y < bottom
        up = transcript.scroll_y
        await pilot.press("pagedown")
        assert transcript.scroll_y > up
        await pilot.press("home")  # empty prompt: Home is the transcript's
        assert transcript.scroll_y == 0
        assert "tell me a lot" in shown(transcript)
        await pilot.press("end")
        assert transcript.scroll_y == transcript.max_scroll_y
        assert transcript.follow
        await pilot.press(*"abc", "home", "x")  # with text, Home edits the prompt's line
        assert prompt.text == "xabc"
        assert transcript.scroll_y == transcript.max_scroll_y
        await pilot.press("ctrl+home")  # always the transcript's
        assert transcript.scroll_y == 0
        assert app.focused is prompt


async def test_home_and_end_jump_without_animation(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": LONG})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me a lot", "enter")
        await seen.wait_event(AgentFinished)
        await settle(pilot, app)
        transcript = app.main.transcript
        transcript.focus()
        await pilot.pause()
        transcript.action_scroll_home()
        assert transcript.scroll_y == 0, "no frames needed: the jump is immediate"
        transcript.action_scroll_end()
        assert transcript.scroll_y == transcript.max_scroll_y
        transcript.action_page_up()
        assert transcript.scroll_y < transcript.max_scroll_y
