"""Pilot: an answer that never ends does not take the TUI with it.

Esc during a flood ends the turn at once, the app keeps answering keys, and the part of
the answer that arrived stays in the transcript (and in the chat's history).
"""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import AgentFinished, ContentDelta, TerminateReason
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.transcript_blocks import NoticeBlock
from gemtui.wire.cancel_note import is_cancel_note
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done


async def _flood_then(key: str, mock_llm: MockLLMServer, workspace: Path, text: str) -> None:
    # Paced: unpaced, the client now reads the whole 2,000,000-character answer cap
    # before the first key can be pressed, and the cap (not the key) ends the turn.
    flood = {"text": text, "chunk_tokens": 4, "endless": True, "tokens_per_second": 40_000}
    mock_llm.enqueue(flood)
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        # the flood is on: a good part of an answer has reached the transcript
        for _ in range(200):
            await seen.wait_event(ContentDelta, after=len(seen.seen))
            if len(app.main.transcript.answer_text()) > 100_000:
                break
        assert len(app.main.transcript.answer_text()) > 100_000
        await pilot.press(key)
        # the answer never ends by itself, so any end is the key's doing; how fast is
        # measured by `make bench`, not asserted here (the wait gives up after 15 s)
        done = await seen.wait_event(AgentFinished)
        assert done.reason == TerminateReason.ABORTED
        await turns_done(app)
        # still answering keys: what is typed lands in the prompt
        await pilot.press(*"next")
        await pilot.pause()
        assert app.main.prompt.text == "next"
        assert not app.turn_running
        answer = app.main.transcript.answer_text()
        assert answer.startswith(text), "the partial answer is kept"
        assert len(answer) > 100_000, "the partial answer is kept"
        blocks = app.main.transcript._blocks.blocks
        notices = [b.text for b in blocks if isinstance(b, NoticeBlock) and "Cancelled" in b.text]
        assert notices, "the person is told the turn was cancelled"
    *_, kept, note = session.chat.history
    assert is_cancel_note(note), "the model is told the prompt was cancelled"
    assert kept.role == "model"
    assert (kept.parts[0].text or "").startswith(text)


async def test_esc_during_a_flood_ends_the_turn_and_keeps_the_answer(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    # distinct words: one short passage over and over would be cut as a loop
    await _flood_then("escape", mock_llm, workspace, "".join(f"flood{i} " for i in range(60)))


async def test_esc_during_a_flood_of_short_lines_ends_the_turn(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Many small Markdown blocks instead of one growing paragraph."""
    await _flood_then("escape", mock_llm, workspace, "- item\n\n" * 20)
