"""An answer that loops while streaming is cut in the TUI too, with a notice saying so."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import AgentFinished, TerminateReason
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.transcript_blocks import NoticeBlock
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done

LOOP = "I should double-check the configuration file before going on. "


async def test_a_looping_answer_is_cut_and_the_notice_shown(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": LOOP * 3, "chunk_tokens": 3, "endless": True})
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        await pilot.press(*"fix it", "enter")
        done = await seen.wait_event(AgentFinished)  # the stream itself never ends
        await turns_done(app)
        await pilot.pause()
        assert done.reason == TerminateReason.LOOP
        notices = [b.text for b in app.main.transcript._blocks.blocks if isinstance(b, NoticeBlock)]
        assert any("kept repeating the same text" in n for n in notices), notices
        answer = app.main.transcript.answer_text()
        assert answer.startswith(LOOP)
        assert len(answer) < 20 * len(LOOP)
        assert not app.turn_running
    kept = session.chat.history[-1].parts[0].text or ""
    assert kept.startswith(LOOP)
    assert len(kept) < 20 * len(LOOP)  # as shown, not the whole batch read ahead
