"""The mock server's Anthropic Messages wire."""

from __future__ import annotations

import json
from typing import Any

import httpx

from gemtui.testing import MockLLMServer

URL = "/v1/messages"
HEADERS = {"x-api-key": "ak-1", "anthropic-version": "2023-06-01"}
BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "abcdefgh"}],
}


def events_of(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """Each frame is exactly ``event: NAME\\ndata: JSON\\n\\n``; the names match the types."""
    text = body.decode()
    assert text.endswith("\n\n")
    out = []
    for raw in text.split("\n\n")[:-1]:
        event_line, data_line = raw.split("\n")
        assert event_line.startswith("event: ")
        assert data_line.startswith("data: ")
        name, data = event_line[7:], json.loads(data_line[6:])
        assert data["type"] == name
        out.append((name, data))
    return out


async def stream(srv: MockLLMServer, headers: dict[str, str] = HEADERS) -> httpx.Response:
    async with httpx.AsyncClient(base_url=srv.url) as client:
        r = await client.post(URL, json={**BODY, "stream": True}, headers=headers)
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/event-stream"
    return r


async def test_stream_event_sequence(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {
            "thought": "think hard",
            "text": "Sure thing",
            "chunks": 2,
            "function_calls": [{"name": "ls", "args": {"path": "."}}],
        }
    )
    r = await stream(mock_llm)
    assert b'{"type": "message_start", ' in r.content  # padded with spaces
    events = events_of(r.content)
    assert [n for n, _ in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    message = events[0][1]["message"]
    assert message["role"] == "assistant"
    assert message["content"] == []
    assert message["model"] == "claude-sonnet-4-5"
    assert message["usage"]["input_tokens"] == 2
    assert events[2][1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    thinking = [e[1]["delta"] for e in events[3:7]]
    assert thinking[:3] == [
        {"type": "thinking_delta", "thinking": "think "},
        {"type": "thinking_delta", "thinking": "hard"},
        {"type": "thinking_delta", "thinking": ""},
    ]
    assert thinking[3]["type"] == "signature_delta"
    assert thinking[3]["signature"]
    assert events[8][1] == {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "text", "text": ""},
    }
    assert [e[1]["delta"]["text"] for e in events[9:11]] == ["Sure ", "thing"]
    tool = events[12][1]["content_block"]
    assert tool["type"] == "tool_use"
    assert tool["name"] == "ls"
    assert tool["input"] == {}
    assert tool["id"].startswith("toolu_")
    fragments = [e[1]["delta"] for e in events[13:16]]
    assert all(f["type"] == "input_json_delta" for f in fragments)
    assert len([f for f in fragments if f["partial_json"]]) >= 2
    assert json.loads("".join(f["partial_json"] for f in fragments)) == {"path": "."}
    assert [e[1]["index"] for e in events[12:17]] == [2] * 5
    assert events[17][1]["delta"]["stop_reason"] == "tool_use"
    assert events[17][1]["usage"] == {"output_tokens": 4}


async def test_bearer_auth_and_stop_reasons(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "a", "finish_reason": "MAX_TOKENS"}, {"text": "b"})
    first = events_of((await stream(mock_llm)).content)
    bearer = {"authorization": "Bearer tok", "anthropic-version": "2023-06-01"}
    second = events_of((await stream(mock_llm, bearer)).content)
    assert first[-2][1]["delta"]["stop_reason"] == "max_tokens"
    assert second[-2][1]["delta"]["stop_reason"] == "end_turn"
    assert mock_llm.requests[0].headers["x-api-key"] == "ak-1"
    assert mock_llm.requests[1].headers["authorization"] == "Bearer tok"


async def test_non_streaming_message(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {"thought": "t", "text": "hi", "function_calls": [{"name": "f", "id": "toolu_x"}]}
    )
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(URL, json=BODY, headers=HEADERS)
    msg = r.json()
    assert msg["type"] == "message"
    assert msg["stop_reason"] == "tool_use"
    assert [b["type"] for b in msg["content"]] == ["thinking", "text", "tool_use"]
    assert msg["content"][2] == {"type": "tool_use", "id": "toolu_x", "name": "f", "input": {}}
    assert msg["usage"] == {"input_tokens": 2, "output_tokens": 2}


async def test_errors_count_tokens_models_and_no_candidates(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {"error": {"status": 529, "message": "Overloaded"}}, {"fault": "no_candidates"}
    )
    async with httpx.AsyncClient(base_url=mock_llm.url, headers=HEADERS) as client:
        overloaded = await client.post(URL, json=BODY)
        empty = await client.post(URL, json={**BODY, "stream": True})
        exhausted = await client.post(URL, json=BODY)
        count = (await client.post(URL + "/count_tokens", json=BODY)).json()
        models = (await client.get("/v1/models")).json()
    assert overloaded.status_code == 529
    assert overloaded.json() == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert [n for n, _ in events_of(empty.content)] == ["message_start", "message_stop"]
    assert exhausted.status_code == 400
    assert exhausted.json() == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "mock script exhausted"},
    }
    assert count == {"input_tokens": 2}
    assert all(m["type"] == "model" for m in models["data"])
