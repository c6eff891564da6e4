"""Nothing typed is lost: text typed or pasted while another pane has focus lands in the
prompt, in order, and the keys a focused pane binds (the approval keys) keep their meaning."""

from __future__ import annotations

from pathlib import Path

from textual import events

from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.approval_queue import ApprovalQueue
from gemtui.tui.widgets.transcript import Transcript
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done


async def test_typing_after_tab_goes_to_the_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("tab")
        await pilot.pause()
        assert isinstance(app.focused, Transcript)
        await pilot.press(*"hello there")
        await pilot.pause()
        assert app.main.prompt.text == "hello there"
        assert app.focused is app.main.prompt


async def test_a_burst_typed_into_the_transcript_arrives_whole_and_in_order(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    text = "the quick brown fox jumps over the lazy dog 0123456789"
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.main.transcript.focus()
        await pilot.pause()
        for ch in text:  # every key reaches the driver before the app handles the first
            key = "space" if ch == " " else ch
            event = events.Key(key, ch)
            event.set_sender(app)
            app._driver.send_message(event)  # type: ignore[union-attr]
        for _ in range(5):
            await pilot.pause()
        assert app.main.prompt.text == text


async def test_a_paste_into_the_transcript_lands_in_the_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    pasted = "\n".join(f"prompt number {n}" for n in range(55))
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"draft: ")
        app.main.transcript.focus()
        await pilot.pause()
        app.post_message(events.Paste(pasted))
        await pilot.pause()
        assert app.main.prompt.text == "draft: " + pasted
        assert app.focused is app.main.prompt


async def test_clicking_a_tool_card_then_typing_keeps_the_text(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    mock_llm.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}]},
        {"text": "read it"},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"read a.txt", "enter")
        await turns_done(app)
        await pilot.pause()
        transcript = app.main.transcript
        card = next(
            y
            for y in range(transcript.size.height)
            if "read_file" in transcript.render_line(y).text
        )
        await pilot.click(Transcript, offset=(4, card))
        await pilot.pause()
        assert app.focused is transcript
        await pilot.press(*"next question")
        await pilot.pause()
        assert app.main.prompt.text == "next question"


async def test_approval_keys_still_decide_while_other_letters_go_to_the_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "g.txt").write_text("hello world\n")
    args = {"file_path": "g.txt", "instruction": "i", "old_string": "world", "new_string": "x"}
    mock_llm.enqueue({"function_calls": [{"name": "replace", "args": args}]}, {"text": "ok"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        assert isinstance(app.focused, ApprovalQueue)
        await pilot.press("h")  # not an approval key: it starts a prompt
        await pilot.pause()
        assert app.main.prompt.text == "h"
        assert len(app.main.approvals.pending()) == 1, "a letter never decides by accident"
        app.main.approvals.focus()
        await pilot.pause()
        await pilot.press("a")
        await turns_done(app)
    assert (workspace / "g.txt").read_text() == "hello x\n"
