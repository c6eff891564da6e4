"""The mock server's OpenAI-compatible chat-completions wire."""

from __future__ import annotations

import json
from typing import Any

import httpx

from gemtui.testing import MockLLMServer

URL = "/v1/chat/completions"
MESSAGES = [{"role": "user", "content": "x" * 12}]


def frames_of(body: bytes) -> list[str]:
    """OpenAI frames: each exactly ``data: <payload>\\n\\n``, the last ``[DONE]``."""
    text = body.decode()
    assert text.endswith("\n\n")
    assert "\r" not in text
    raw = text.split("\n\n")[:-1]
    assert all(r.startswith("data: ") and "\n" not in r for r in raw)
    assert raw[-1] == "data: [DONE]"
    return [r.removeprefix("data: ") for r in raw]


async def stream(srv: MockLLMServer, **extra: Any) -> list[dict[str, Any]]:
    body = {"model": "qwen3", "stream": True, "messages": MESSAGES, **extra}
    async with httpx.AsyncClient(base_url=srv.url) as client:
        r = await client.post(URL, json=body, headers={"authorization": "Bearer sk-1"})
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/event-stream"
    return [json.loads(f) for f in frames_of(r.content)[:-1]]


def deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in chunks if c["choices"]]


async def test_stream_with_usage_reasoning_and_tool_calls(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {
            "thought": "plan it",
            "text": "On it.",
            "function_calls": [
                {"name": "ls", "args": {"path": "src"}},
                {"name": "grep", "args": {"pattern": "x"}, "id": "call_given"},
            ],
        }
    )
    chunks = await stream(mock_llm, stream_options={"include_usage": True})
    assert all(c["usage"] is None for c in chunks[:-1])
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "qwen3" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    d = deltas(chunks)
    assert d[0] == {"role": "assistant", "content": ""}
    assert d[1] == {"reasoning_content": "plan it"}
    assert d[2] == {"content": "On it."}
    calls: dict[int, dict[str, Any]] = {}
    fragments: dict[int, int] = {}
    for delta in d[3:-1]:
        (tc,) = delta["tool_calls"]
        if "id" in tc:
            assert tc["index"] not in calls
            assert tc["type"] == "function"
            assert tc["function"]["arguments"] == ""
            calls[tc["index"]] = {"id": tc["id"], "name": tc["function"]["name"], "args": ""}
        else:
            assert set(tc) == {"index", "function"}
            calls[tc["index"]]["args"] += tc["function"]["arguments"]
            fragments[tc["index"]] = fragments.get(tc["index"], 0) + 1
    assert calls[0]["name"] == "ls"
    assert json.loads(calls[0]["args"]) == {"path": "src"}
    assert calls[1] == {"id": "call_given", "name": "grep", "args": '{"pattern": "x"}'}
    assert calls[0]["id"] != calls[1]["id"]
    assert fragments == {0: 2, 1: 2}
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-2])
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == {
        "prompt_tokens": 3,
        "completion_tokens": 4,
        "total_tokens": 7,
        "completion_tokens_details": {"reasoning_tokens": 2},
    }


async def test_stream_without_usage_and_finish_mapping(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "a b c", "chunks": 3, "finish_reason": "MAX_TOKENS"})
    mock_llm.enqueue({"text": "no", "finish_reason": "SAFETY"})
    mock_llm.enqueue({"text": "open", "finish_reason": None})
    chunks = await stream(mock_llm)
    assert all("usage" not in c for c in chunks)
    assert [d.get("content") for d in deltas(chunks)] == ["", "a ", "b ", "c", None]
    assert chunks[-1]["choices"][0] == {
        "index": 0,
        "delta": {},
        "logprobs": None,
        "finish_reason": "length",
    }
    assert (await stream(mock_llm))[-1]["choices"][0]["finish_reason"] == "content_filter"
    assert all(c["choices"][0]["finish_reason"] is None for c in await stream(mock_llm))
    assert mock_llm.requests[0].headers["authorization"] == "Bearer sk-1"
    assert mock_llm.requests[0].json["model"] == "qwen3"


async def test_non_streaming_completion(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {"text": "done", "thought": "t", "function_calls": [{"name": "f", "args": {"a": 1}}]}
    )
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(URL, json={"model": "m", "messages": MESSAGES})
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] == "done"
    assert choice["message"]["reasoning_content"] == "t"
    (call,) = choice["message"]["tool_calls"]
    assert call["type"] == "function"
    assert call["function"]["name"] == "f"
    assert json.loads(call["function"]["arguments"]) == {"a": 1}
    assert body["usage"]["prompt_tokens"] == 3


async def test_models_errors_and_exhaustion(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"error": {"status": 429, "message": "slow down"}})
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        models = (await client.get("/v1/models")).json()
        limited = await client.post(URL, json={"stream": True, "messages": []})
        exhausted = await client.post(URL, json={"stream": True, "messages": []})
    assert models["object"] == "list"
    assert all(m["object"] == "model" and m["id"] for m in models["data"])
    assert limited.status_code == 429
    assert limited.json() == {
        "error": {
            "message": "slow down",
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    assert exhausted.status_code == 400
    assert exhausted.json()["error"]["message"] == "mock script exhausted"
    assert exhausted.json()["error"]["type"] == "invalid_request_error"


async def test_no_candidates_is_an_empty_choices_chunk(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "ignored", "fault": "no_candidates"})
    mock_llm.enqueue({"fault": "no_candidates"})
    (chunk,) = await stream(mock_llm)
    assert chunk["choices"] == []
    assert "usage" not in chunk
    (with_usage,) = await stream(mock_llm, stream_options={"include_usage": True})
    assert with_usage["choices"] == []
    assert with_usage["usage"]["prompt_tokens"] == 3
