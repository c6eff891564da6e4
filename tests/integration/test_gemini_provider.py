"""The Gemini adapter against the wire-faithful mock: streaming, faults, retry, timeouts."""

from __future__ import annotations

import httpx
import pytest

from gemtui.errors import (
    ApiError,
    ModelNotFoundError,
    RetryableApiError,
    StreamError,
    TransportError,
)
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.providers.retry import RetryingGenerator, RetryNotice, RetryPolicy
from gemtui.testing import MockLLMServer
from gemtui.wire import Content, GenerateContentRequest, GenerateContentResponse

REQ = GenerateContentRequest(contents=[Content.user("hi")])
FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)


def _gen(srv: MockLLMServer, read_timeout: float | None = None) -> GeminiGenerator:
    return GeminiGenerator(make_client(read_timeout), "test-key-123", srv.url)


def _text(chunks: list[GenerateContentResponse]) -> str:
    out = []
    for c in chunks:
        for cand in c.candidates or []:
            for p in cand.content.parts if cand.content else []:
                if p.text and not p.thought:
                    out.append(p.text)
    return "".join(out)


async def test_stream_arrives_in_order_with_key_header(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {"text": "one two three four five six", "chunks": 3, "thought": "**Plan** think"}
    )
    gen = _gen(mock_llm)
    chunks = [c async for c in gen.stream(REQ, model="gemini-2.5-pro")]
    assert _text(chunks) == "one two three four five six"
    assert chunks[-1].candidates[0].finish_reason == "STOP"  # type: ignore[index]
    assert chunks[-1].usage_metadata is not None
    req = mock_llm.requests[-1]
    assert req.path.endswith("/v1beta/models/gemini-2.5-pro:streamGenerateContent")
    assert req.query.get("alt") in ("sse", ["sse"])
    assert req.headers["x-goog-api-key"] == "test-key-123"
    assert "key" not in req.query
    assert req.json == REQ.to_wire()
    await gen.aclose()


async def test_line_separators_inside_json_survive(mock_llm: MockLLMServer) -> None:
    tricky = "a\u2028b\u0085c\u2029d"
    mock_llm.enqueue({"text": tricky})
    gen = _gen(mock_llm)
    assert _text([c async for c in gen.stream(REQ, model="m")]) == tricky
    await gen.aclose()


async def test_generate_count_tokens_and_models(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "whole answer", "chunks": 4})
    gen = _gen(mock_llm)
    resp = await gen.generate(REQ, model="m")
    assert resp.candidates
    assert resp.candidates[0].content.parts[0].text == "whole answer"
    assert await gen.count_tokens([Content.user("x" * 40)], model="m") > 0
    models = await gen.list_models()
    assert models
    assert models[0].name.startswith("models/")
    await gen.aclose()


async def test_429_with_retry_info_uses_the_server_delay(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {"error": {"status": 429, "message": "Resource exhausted", "retry_delay": "0.3s"}}
    )
    mock_llm.enqueue({"text": "after the wait"})
    notices: list[RetryNotice] = []
    gen = RetryingGenerator(
        _gen(mock_llm), RetryPolicy(max_attempts=3, initial_delay=30, max_delay=30), notices.append
    )
    chunks = [c async for c in gen.stream(REQ, model="m")]
    assert _text(chunks) == "after the wait"
    assert len(notices) == 1
    assert 0.3 <= notices[0].wait <= 0.36  # the server's delay, not the computed 30 s
    await gen.aclose()


@pytest.mark.parametrize("status", [500, 503])
async def test_5xx_is_retried(mock_llm: MockLLMServer, status: int) -> None:
    mock_llm.enqueue({"error": {"status": status, "message": "backend error"}}, {"text": "ok"})
    gen = RetryingGenerator(_gen(mock_llm), FAST)
    assert _text([c async for c in gen.stream(REQ, model="m")]) == "ok"
    assert len(mock_llm.requests) == 2


async def test_persistent_5xx_ends_in_a_clear_error(mock_llm: MockLLMServer) -> None:
    for _ in range(3):
        mock_llm.enqueue({"error": {"status": 503, "message": "The model is overloaded."}})
    gen = RetryingGenerator(_gen(mock_llm), FAST)
    with pytest.raises(RetryableApiError, match="overloaded"):
        [c async for c in gen.stream(REQ, model="m")]
    assert len(mock_llm.requests) == 3


async def test_400_and_404_are_not_retried(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"error": {"status": 400, "message": "Invalid JSON payload"}})
    gen = RetryingGenerator(_gen(mock_llm), FAST)
    with pytest.raises(ApiError, match="Invalid JSON payload"):
        [c async for c in gen.stream(REQ, model="m")]
    mock_llm.enqueue({"error": {"status": 404, "message": "models/x is not found"}})
    with pytest.raises(ModelNotFoundError):
        await gen.generate(REQ, model="x")
    assert len(mock_llm.requests) == 2


async def test_reset_before_first_byte_is_retried(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"fault": "reset_before"}, {"text": "second try"})
    gen = RetryingGenerator(_gen(mock_llm), FAST)
    assert _text([c async for c in gen.stream(REQ, model="m")]) == "second try"


async def test_reset_after_chunks_is_a_stream_error(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {"text": "a b c d e f", "chunks": 6, "fault": "reset_after", "after_chunks": 2}
    )
    gen = RetryingGenerator(_gen(mock_llm), FAST)
    got: list[GenerateContentResponse] = []

    async def drain() -> None:
        async for c in gen.stream(REQ, model="m"):
            got.append(c)

    with pytest.raises(StreamError):
        await drain()
    assert len(got) == 2
    assert len(mock_llm.requests) == 1


async def test_cut_mid_frame_ends_without_finish_reason(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "a b c d", "chunks": 4, "fault": "cut_mid_frame", "after_chunks": 2})
    gen = _gen(mock_llm)
    chunks = [c async for c in gen.stream(REQ, model="m")]
    assert len(chunks) == 2
    assert all(not (c.candidates and c.candidates[0].finish_reason) for c in chunks)


async def test_malformed_frame_is_a_stream_error(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "a b c d", "chunks": 4, "fault": "malformed_frame", "at": 1})
    gen = _gen(mock_llm)
    with pytest.raises(StreamError) as info:
        [c async for c in gen.stream(REQ, model="m")]
    assert info.value.kind == "malformed"


async def test_no_candidates_is_tolerated(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"fault": "no_candidates"})
    gen = _gen(mock_llm)
    chunks = [c async for c in gen.stream(REQ, model="m")]
    assert chunks
    assert all(not c.candidates for c in chunks)


async def test_stall_hits_the_read_timeout(mock_llm: MockLLMServer) -> None:
    # held for ever: only the read timeout can end the stream
    mock_llm.enqueue({"text": "a b c", "chunks": 3, "fault": "hold", "after_chunks": 1})
    gen = _gen(mock_llm, read_timeout=0.3)
    with pytest.raises(TransportError):
        [c async for c in gen.stream(REQ, model="m")]


async def test_connection_refused_is_a_transport_error() -> None:
    gen = GeminiGenerator(httpx.AsyncClient(), "k", "http://127.0.0.1:9")
    with pytest.raises(TransportError):
        await gen.generate(REQ, model="m")
    await gen.aclose()
