"""/compress is a visible, busy state: a prompt typed meanwhile waits and is sent on the
summary (never lost under it), and an empty conversation is not "compressed"."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import AgentFinished, HistoryCompressed
from gemtui.testing import filler
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done


def _texts(request_json: dict[str, object]) -> str:
    return str(request_json["contents"])


async def test_a_prompt_sent_during_compress_waits_and_reaches_the_model(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue(
        {"text": filler(40, "first"), "usage": {"prompt": 90, "output": 30}},
        {"count_tokens": 5000},
        {"text": "SUMMARY: the person asked once.", "fault": "hold"},
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
        assert app.main.status.activity == "compressing", "the summary is still held"
        mock_llm.release()
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


async def test_the_context_line_stays_a_request_size_after_compress_and_esc(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """A request carries the system instruction and the tools besides the history: after
    a compression, or a call cut short before it reported usage, the context line is the
    size of the next request, not of the history alone (851 where a request is ~4k)."""
    from gemtui.agent.token_estimate import request_overhead_tokens

    mock_llm.enqueue(
        {"text": filler(40, "first"), "usage": {"prompt": 4000, "output": 30}},
        {"count_tokens": 5000},
        {"text": "SUMMARY: the person asked once."},
        {"count_tokens": 100},
        {"text": "a b c d e f", "chunks": 3, "fault": "stall", "after_chunks": 1},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me at length", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert app.session is not None
        overhead = request_overhead_tokens(app.session.chat)
        assert overhead > 500, "the system instruction and tools are most of a request"
        app.run_slash("/compress")
        done = await seen.wait_event(HistoryCompressed)
        assert (done.tokens_before, done.tokens_after) == (5000 + overhead, 100 + overhead)
        compressing = [w for w in app.workers if w.group == "compress"]
        if compressing:
            await app.workers.wait_for_complete(compressing)
        assert app.main.usage.last_prompt_tokens == 100 + overhead


async def test_the_context_line_after_esc_counts_the_whole_request(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """An OpenAI-compatible server reports usage at the end only: a call cut short with
    Esc is estimated, and the estimate is the whole request's, tools and system included."""
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.agent.session import Session, SessionOptions
    from gemtui.agent.token_estimate import estimate_request_tokens, request_overhead_tokens
    from gemtui.config.settings import Settings
    from gemtui.providers.http import make_client
    from gemtui.providers.openai_compat import OpenAICompatGenerator

    gen = OpenAICompatGenerator(make_client(), f"{mock_llm.url}/v1", None)
    provider = ResolvedProvider("openai", "openai", gen, "qwen3-coder", 32_768)
    session = Session(Settings(), provider, SessionOptions(workspace=workspace))
    mock_llm.enqueue({"text": "a b c d e f", "chunks": 3, "fault": "stall", "after_chunks": 2})
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"and now?", "enter")
        await seen.wait_for(lambda m: type(getattr(m, "event", None)).__name__ == "ContentDelta")
        await pilot.press("escape")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        shown = app.main.usage.last_prompt_tokens
        assert shown > request_overhead_tokens(session.chat) > 500
        assert shown <= estimate_request_tokens(session.chat)
