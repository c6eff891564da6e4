"""/compress is a visible, busy state: a prompt typed meanwhile waits and is sent on the
summary (never lost under it), and an empty conversation is not "compressed"."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import AgentFinished, HistoryCompressed
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done


def _texts(request_json: dict[str, object]) -> str:
    return str(request_json["contents"])


async def test_a_prompt_sent_during_compress_waits_and_reaches_the_model(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue(
        {"text": "First answer. " * 20, "usage": {"prompt": 90, "output": 30}},
        {"count_tokens": 5000},
        {"text": "SUMMARY: the person asked once.", "fault": "stall", "seconds": 1.5},
        {"count_tokens": 100},
        {"text": "Second answer."},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me at length", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        app.run_slash("/compress")
        await pilot.pause()
        assert app.main.status.activity == "compressing", "a busy state while it runs"
        mark = len(seen.seen)
        await pilot.press(*"the second question", "enter")
        await pilot.pause()
        assert list(app.queued) == ["the second question"]
        assert "1 queued" in app.main.status.busy
        await seen.wait_event(HistoryCompressed, after=mark)
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
        assert app.main.status.activity == ""
    last = _texts(mock_llm.requests[-1].json)
    assert "the second question" in last
    assert "SUMMARY: the person asked once." in last
    assert app.session is not None
    assert "the second question" in str(app.session.chat.history)


async def test_compress_on_an_empty_conversation_says_there_is_nothing(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        app.run_slash("/compress")
        await pilot.pause()
        notes = [n.message for n in app._notifications]
        assert any("Nothing to compress" in n for n in notes), notes
        assert not any("compressed" in n.lower() for n in notes)
        assert not any(isinstance(getattr(m, "event", None), HistoryCompressed) for m in seen.seen)
    assert mock_llm.requests == []
