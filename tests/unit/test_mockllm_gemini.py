"""The mock server's Gemini API and Code Assist wire: exact framing, shapes and recording."""

from __future__ import annotations

import json
import math
import re
import time
from typing import Any

import httpx

from gemtui.testing import MockLLMServer, Step, count_tokens_step, text_step, tool_step

STREAM = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
_LINES = re.compile(r"\r\n|\r|\n")  # SSE line ends: nothing else (no U+2028, U+0085)


def frames_of(body: bytes) -> list[Any]:
    """Gemini frames: each exactly ``data: <json>\\r\\n\\r\\n``; returns the parsed JSON."""
    text = body.decode()
    assert text.endswith("\r\n\r\n")
    raw = text.split("\r\n\r\n")[:-1]
    assert all(r.startswith("data: ") and not _LINES.search(r) for r in raw)
    return [json.loads(r.removeprefix("data: ")) for r in raw]


async def post_stream(srv: MockLLMServer, body: Any = None, path: str = STREAM) -> list[Any]:
    async with httpx.AsyncClient(base_url=srv.url) as client:
        r = await client.post(path, json=body or {}, headers={"x-goog-api-key": "k-123"})
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/event-stream"
    return frames_of(r.content)


def parts(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    return list(chunk["candidates"][0]["content"]["parts"])


async def test_stream_thought_text_and_final_chunk(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"thought": "let me think", "text": "Hello brave new world", "chunks": 2})
    body = {"contents": [{"role": "user", "parts": [{"text": "x" * 40}]}]}
    chunks = await post_stream(mock_llm, body)
    assert [parts(c) for c in chunks] == [
        [{"text": "let ", "thought": True}],
        [{"text": "me think", "thought": True}],
        [{"text": "Hello brave "}],
        [{"text": "new world"}],
        [{"text": ""}],
    ]
    for c in chunks:
        assert c["candidates"][0]["content"]["role"] == "model"
        assert c["candidates"][0]["index"] == 0
        assert c["modelVersion"] == "gemini-2.5-pro"
        assert c["responseId"] == chunks[0]["responseId"]
    assert all("finishReason" not in c["candidates"][0] for c in chunks[:-1])
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert chunks[-1]["usageMetadata"] == {
        "promptTokenCount": 10,
        "candidatesTokenCount": 4,
        "totalTokenCount": 17,
        "thoughtsTokenCount": 3,
    }


async def test_request_is_recorded(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(text_step("hi"))
    await post_stream(mock_llm, {"contents": []})
    (req,) = mock_llm.requests
    assert req.method == "POST"
    assert req.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
    assert req.query == {"alt": "sse"}
    assert req.headers["x-goog-api-key"] == "k-123"
    assert req.json == {"contents": []}
    assert req.body == b'{"contents":[]}'


async def test_function_calls_end_the_stream(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {
            "text": "Listing.",
            "function_calls": [
                {"name": "ls", "args": {"path": "."}, "thought_signature": "c2lnbmF0dXJl+/=="},
                {"name": "read", "args": {}, "id": "call-7"},
            ],
        }
    )
    chunks = await post_stream(mock_llm)
    assert len(chunks) == 2
    assert parts(chunks[0]) == [{"text": "Listing."}]
    last = chunks[-1]["candidates"][0]
    assert last["content"]["parts"] == [
        {
            "functionCall": {"name": "ls", "args": {"path": "."}},
            "thoughtSignature": "c2lnbmF0dXJl+/==",
        },
        {"functionCall": {"id": "call-7", "name": "read", "args": {}}},
    ]
    assert last["finishReason"] == "STOP"


async def test_grounding_and_citations(mock_llm: MockLLMServer) -> None:
    grounding = {"groundingChunks": [{"web": {"uri": "https://a", "title": "A"}}]}
    citations = {"citationSources": [{"startIndex": 0, "endIndex": 3, "uri": "https://a"}]}
    mock_llm.enqueue(Step(text="one two", chunks=2, grounding=grounding, citations=citations))
    chunks = await post_stream(mock_llm)
    assert [c["candidates"][0].get("groundingMetadata") for c in chunks] == [{}, {}, grounding]
    assert chunks[-1]["candidates"][0]["citationMetadata"] == citations


async def test_usage_finish_reason_and_no_finish(mock_llm: MockLLMServer) -> None:
    usage = {"prompt": 100, "output": 7, "thoughts": 5, "cached": 60, "total": 112}
    mock_llm.enqueue({"text": "cut", "finish_reason": "MAX_TOKENS", "usage": usage})
    mock_llm.enqueue({"finish_reason": None})
    mock_llm.enqueue({"finish_reason": "MALFORMED_FUNCTION_CALL"})
    first = await post_stream(mock_llm)
    assert first[-1]["candidates"][0]["finishReason"] == "MAX_TOKENS"
    assert first[-1]["usageMetadata"] == {
        "promptTokenCount": 100,
        "candidatesTokenCount": 7,
        "totalTokenCount": 112,
        "cachedContentTokenCount": 60,
        "thoughtsTokenCount": 5,
    }
    (bare,) = await post_stream(mock_llm)
    assert bare["candidates"][0] == {
        "content": {"parts": [{"text": ""}], "role": "model"},
        "index": 0,
    }
    (malformed,) = await post_stream(mock_llm)
    assert malformed["candidates"][0] == {"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}


async def test_chunk_tokens_on_a_50k_token_text(mock_llm: MockLLMServer) -> None:
    text = " ".join(f"w{i}" for i in range(50_000)) + "\n"
    started = time.process_time()  # CPU time (client and mock share it), not the clock's
    mock_llm.enqueue({"text": text, "chunk_tokens": 7})
    chunks = await post_stream(mock_llm)
    assert time.process_time() - started < 10
    assert len(chunks) == math.ceil(50_000 / 7) + 1
    assert parts(chunks[0]) == [{"text": "w0 w1 w2 w3 w4 w5 w6 "}]
    assert "".join(parts(c)[0]["text"] for c in chunks) == text
    assert chunks[-1]["usageMetadata"]["candidatesTokenCount"] == 50_000


async def test_unicode_line_separators_stay_inside_the_frame(mock_llm: MockLLMServer) -> None:
    tricky = "a\u2028b\u0085c\u2029d\x0be"
    mock_llm.enqueue({"text": tricky})
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(STREAM, json={})
    assert "\u2028".encode() in r.content
    assert "\u0085".encode() in r.content
    lines = _LINES.split(r.content.decode())
    data = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
    assert parts(data[0]) == [{"text": tricky}]


async def test_generate_content_merges_one_response(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {"thought": "hm", "text": "a b c", "chunks": 3, "function_calls": [{"name": "f"}]}
    )
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post("/v1beta/models/gemini-2.5-flash:generateContent", json={})
    body = r.json()
    assert body["candidates"][0]["content"]["parts"] == [
        {"text": "hm", "thought": True},
        {"text": "a b c"},
        {"functionCall": {"name": "f", "args": {}}},
    ]
    assert body["candidates"][0]["finishReason"] == "STOP"
    assert body["modelVersion"] == "gemini-2.5-flash"
    assert body["usageMetadata"]["candidatesTokenCount"] == 3


async def test_stream_without_alt_sse_is_a_json_array(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "a b", "chunks": 2})
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post("/v1beta/models/m:streamGenerateContent", json={})
    assert [parts(c)[0]["text"] for c in r.json()] == ["a ", "b", ""]


async def test_count_tokens_estimate_and_override(mock_llm: MockLLMServer) -> None:
    call = {"name": "ls", "args": {"path": "."}}
    reply = {"name": "ls", "response": {"output": "a.txt"}}
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "x" * 10}]},
            {"role": "model", "parts": [{"functionCall": call}]},
            {"role": "user", "parts": [{"functionResponse": reply}]},
        ],
        "systemInstruction": {"parts": [{"text": "s" * 5}]},
    }
    chars = 10 + len(json.dumps(call, separators=(",", ":"))) + 5
    chars += len(json.dumps(reply, separators=(",", ":"), sort_keys=True))
    mock_llm.enqueue(count_tokens_step(1234), text_step("still queued"))
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        url = "/v1beta/models/gemini-2.5-pro:countTokens"
        first = (await client.post(url, json=body)).json()
        second = (await client.post(url, json=body)).json()
        third = (await client.post(url, json=body)).json()
    assert first == {"totalTokens": 1234}
    assert second == third == {"totalTokens": math.ceil(chars / 4)}
    assert mock_llm.remaining == 1


async def test_models_list_and_exhausted_script(mock_llm: MockLLMServer) -> None:
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        models = (await client.get("/v1beta/models")).json()
        r = await client.post(STREAM, json={})
    assert "models/gemini-2.5-pro" in [m["name"] for m in models["models"]]
    assert r.status_code == 400
    assert r.json() == {
        "error": {"code": 400, "message": "mock script exhausted", "status": "INVALID_ARGUMENT"}
    }


async def test_loop_cycles_the_script() -> None:
    async with MockLLMServer([text_step("one"), text_step("two")], loop=True) as srv:
        texts = [parts((await post_stream(srv))[0])[0]["text"] for _ in range(5)]
    assert texts == ["one", "two", "one", "two", "one"]


async def test_raw_chunks_are_sent_verbatim(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"raw_chunks": [{"candidates": []}, {"weird": "\u2028"}]})
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(STREAM, json={})
    assert r.content == 'data: {"candidates":[]}\r\n\r\ndata: {"weird":"\u2028"}\r\n\r\n'.encode()


async def test_code_assist_envelopes(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(text_step("hi there", chunks=2), tool_step("ls", {"p": 1}))
    envelope: dict[str, Any] = {
        "model": "gemini-2.5-pro",
        "project": "p1",
        "user_prompt_id": "u1",
        "request": {"contents": [{"role": "user", "parts": [{"text": "abcdefgh"}]}]},
    }
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        stream = await client.post("/v1internal:streamGenerateContent?alt=sse", json=envelope)
        single = (await client.post("/v1internal:generateContent", json=envelope)).json()
        count_req = {
            "request": {
                "model": "models/gemini-2.5-pro",
                "contents": envelope["request"]["contents"],
            }
        }
        count = (await client.post("/v1internal:countTokens", json=count_req)).json()
        load = (await client.post("/v1internal:loadCodeAssist", json={"metadata": {}})).json()
        onboard = (
            await client.post("/v1internal:onboardUser", json={"tierId": "free-tier"})
        ).json()
        op = (await client.get(f"/v1internal/{onboard['name']}")).json()
    chunks = frames_of(stream.content)
    assert [set(c) for c in chunks] == [{"response", "traceId"}] * 3
    assert [parts(c["response"])[0]["text"] for c in chunks] == ["hi ", "there", ""]
    assert chunks[-1]["response"]["usageMetadata"]["promptTokenCount"] == 2
    assert chunks[-1]["response"]["modelVersion"] == "gemini-2.5-pro"
    call = single["response"]["candidates"][0]["content"]["parts"][0]
    assert call == {"functionCall": {"name": "ls", "args": {"p": 1}}}
    assert count == {"totalTokens": 2}
    assert load["currentTier"]["id"] == "free-tier"
    assert load["cloudaicompanionProject"] == "mock-project"
    assert onboard["done"] is True
    assert op["response"]["cloudaicompanionProject"]["id"] == "mock-project"


def test_in_thread_server_with_a_sync_client(mock_llm_thread: MockLLMServer) -> None:
    mock_llm_thread.enqueue(text_step("sync"))
    with MockLLMServer.in_thread([text_step("own")]) as other:
        r_own = httpx.post(other.url + STREAM, json={})
    r = httpx.post(mock_llm_thread.url + STREAM, json={})
    assert parts(frames_of(r.content)[0]) == [{"text": "sync"}]
    assert parts(frames_of(r_own.content)[0]) == [{"text": "own"}]
    assert len(mock_llm_thread.requests) == 1
