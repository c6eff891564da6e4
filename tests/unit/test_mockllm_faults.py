"""Fault injection, HTTP framing, pacing and the command line of the mock server."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pydantic
import pytest

from gemtui.testing import MockLLMServer, Step, error_step, fault_step, text_step, tool_step

STREAM = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
GENERATE = "/v1beta/models/gemini-2.5-pro:generateContent"
RPC = "type.googleapis.com/google.rpc."


def data_lines(body: bytes) -> list[str]:
    lines = re.split(r"\r\n|\r|\n", body.decode())
    return [line[6:] for line in lines if line.startswith("data: ")]


async def read_frames(client: httpx.AsyncClient, path: str, got: list[str]) -> None:
    """Stream ``path``, appending each ``data:`` payload to ``got`` as it arrives."""
    async with client.stream("POST", path, json={}) as r:
        async for line in r.aiter_lines():
            if line.startswith("data: "):
                got.append(line[6:])


# -- HTTP errors ------------------------------------------------------------------------


async def test_429_with_every_google_detail(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {
            "error": {
                "status": 429,
                "message": "Quota exceeded",
                "retry_delay": "0.5s",
                "quota_reset_delay": "34.07s",
                "reason": "RATE_LIMIT_EXCEEDED",
                "quota_id": "GenerateRequestsPerMinutePerProjectPerModel",
                "headers": {"Retry-After": "1"},
            }
        }
    )
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(STREAM, json={})
    assert r.status_code == 429
    assert r.headers["retry-after"] == "1"
    assert r.json() == {
        "error": {
            "code": 429,
            "message": "Quota exceeded",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {"@type": RPC + "RetryInfo", "retryDelay": "0.5s"},
                {
                    "@type": RPC + "ErrorInfo",
                    "reason": "RATE_LIMIT_EXCEEDED",
                    "domain": "googleapis.com",
                    "metadata": {"quotaResetDelay": "34.07s"},
                },
                {
                    "@type": RPC + "QuotaFailure",
                    "violations": [{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel"}],
                },
            ],
        }
    }


async def test_error_details_only_when_given(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(error_step(503, "busy"), error_step(429, retry_delay="900ms"))
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        busy = await client.post(GENERATE, json={})
        retry = await client.post(STREAM, json={})
    assert busy.status_code == 503
    assert busy.json() == {"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}}
    assert retry.json()["error"]["details"] == [{"@type": RPC + "RetryInfo", "retryDelay": "900ms"}]


# -- connection faults ------------------------------------------------------------------


async def test_reset_before_any_response(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(fault_step("reset_before"), text_step("after"))
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        with pytest.raises(httpx.TransportError):
            await client.post(STREAM, json={})
        r = await client.post(STREAM, json={})  # the server survives; a new connection works
    assert (
        json.loads(data_lines(r.content)[0])["candidates"][0]["content"]["parts"][0]["text"]
        == "after"
    )


async def test_reset_after_k_frames(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "a b c d e", "chunks": 5, "fault": "reset_after", "after_chunks": 2})
    got: list[str] = []
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        with pytest.raises(httpx.TransportError):
            await read_frames(client, STREAM, got)
    assert [json.loads(d)["candidates"][0]["content"]["parts"][0]["text"] for d in got] == [
        "a ",
        "b ",
    ]


async def test_reset_after_on_a_non_streaming_call(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(fault_step("reset_after", text="hello"))
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        with pytest.raises(httpx.TransportError):
            await client.post(GENERATE, json={})


async def test_cut_mid_frame_ends_cleanly_with_half_a_frame(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "a b c", "chunks": 3, "fault": "cut_mid_frame", "after_chunks": 1})
    mock_llm.enqueue({"text": "whole answer", "fault": "cut_mid_frame"})
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(STREAM, json={})
        single = await client.post(GENERATE, json={})
    assert r.status_code == 200
    first, rest = r.content.decode().split("\r\n\r\n", 1)
    assert (
        json.loads(first.removeprefix("data: "))["candidates"][0]["content"]["parts"][0]["text"]
        == "a "
    )
    assert rest.startswith('data: {"candidates"')
    assert "\n" not in rest
    assert "\r" not in rest
    with pytest.raises(json.JSONDecodeError):
        json.loads(rest.removeprefix("data: "))
    assert single.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        single.json()


async def test_malformed_frame_is_visible_and_the_rest_is_normal(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"text": "a b c", "chunks": 3, "fault": "malformed_frame", "at": 1})
    mock_llm.enqueue(fault_step("malformed_frame", text="x", at=2))
    mock_llm.enqueue(fault_step("malformed_frame", text="x"))
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        gemini = data_lines((await client.post(STREAM, json={})).content)
        openai = data_lines(
            (await client.post("/v1/chat/completions", json={"stream": True})).content
        )
        single = await client.post(GENERATE, json={})
    assert len(gemini) == 4
    for i, data in enumerate(gemini):
        if i == 1:
            with pytest.raises(json.JSONDecodeError):
                json.loads(data)
        else:
            json.loads(data)
    with pytest.raises(json.JSONDecodeError):
        json.loads(openai[2])
    assert openai[-1] == "[DONE]"
    with pytest.raises(json.JSONDecodeError):
        single.json()


async def test_no_candidates_gemini(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(fault_step("no_candidates"), fault_step("no_candidates"))
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        streamed = [json.loads(d) for d in data_lines((await client.post(STREAM, json={})).content)]
        single = (await client.post(GENERATE, json={})).json()
    assert streamed
    assert all("candidates" not in c for c in streamed)
    assert all("usageMetadata" in c for c in streamed)
    assert "candidates" not in single
    assert "usageMetadata" in single


async def test_stall_trips_the_client_read_timeout(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(
        {"text": "a b c", "chunks": 3, "fault": "stall", "after_chunks": 1, "seconds": 30}
    )
    got: list[str] = []
    timeout = httpx.Timeout(5.0, read=0.3)
    async with httpx.AsyncClient(base_url=mock_llm.url, timeout=timeout) as client:
        with pytest.raises(httpx.ReadTimeout):  # the read timeout, not the 30 s stall, ends it
            await read_frames(client, STREAM, got)
    assert len(got) == 1


async def test_short_stall_then_the_stream_finishes(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(fault_step("stall", text="a b", chunks=2, after_chunks=1, seconds=0.2))
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(STREAM, json={})
    assert time.monotonic() - started >= 0.15
    assert len(data_lines(r.content)) == 3


# -- pacing and framing -----------------------------------------------------------------


async def test_tokens_per_second_paces_the_stream(mock_llm: MockLLMServer) -> None:
    """A lower bound only: a loaded machine can make the stream slower, never faster."""
    text = " ".join(["tok"] * 20)
    mock_llm.enqueue({"text": text, "chunk_tokens": 2, "tokens_per_second": 50})
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(STREAM, json={})
    assert len(data_lines(r.content)) == 11
    assert time.monotonic() - started >= 0.8 * 20 / 50


async def test_each_frame_reaches_the_client_as_it_is_written(mock_llm: MockLLMServer) -> None:
    """The first frame is read while the rest is held back: nothing waits for the body."""
    mock_llm.enqueue({"text": "a b c", "chunks": 3, "fault": "hold", "after_chunks": 1})
    lines: list[str] = []
    async with (
        httpx.AsyncClient(base_url=mock_llm.url) as client,
        client.stream("POST", STREAM, json={}) as r,
    ):
        async for line in r.aiter_lines():
            if line.startswith("data: "):
                lines.append(line)
                if len(lines) == 1:
                    mock_llm.release()
    assert len(lines) == 4  # three text frames and the finish


async def test_keep_alive_and_chunked_framing_on_the_raw_socket() -> None:
    async with MockLLMServer([text_step("a b", chunks=2), text_step("c")]) as srv:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        request = (
            f"POST {STREAM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 2\r\n\r\n{}"
        ).encode()
        for expected in (3, 2):
            writer.write(request)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 OK\r\n")
            assert b"Transfer-Encoding: chunked\r\n" in head
            chunks: list[bytes] = []
            while True:
                size = int((await reader.readuntil(b"\r\n"))[:-2], 16)
                data = await reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(data[:-2])
            assert len(chunks) == expected  # one HTTP chunk per SSE frame
            assert all(c.startswith(b"data: {") and c.endswith(b"}\r\n\r\n") for c in chunks)
        writer.close()
        await writer.wait_closed()
    assert len(srv.requests) == 2


async def test_chunked_request_bodies_are_read(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue(text_step("ok"))

    async def body() -> Any:
        yield b'{"contents":'
        yield b"[]}"

    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        r = await client.post(STREAM, content=body())
    assert r.status_code == 200
    assert mock_llm.requests[0].json == {"contents": []}


# -- script model and command line ------------------------------------------------------


def test_steps_are_validated_and_helpers_build_them() -> None:
    with pytest.raises(pydantic.ValidationError):
        MockLLMServer([{"txt": "typo"}])
    with pytest.raises(pydantic.ValidationError):
        Step.model_validate({"fault": "explode"})
    step = tool_step("ls", {"p": "."}, id="c1", thought_signature="sig", text="x")
    assert step.text == "x"
    assert step.function_calls[0].model_dump() == {
        "name": "ls",
        "args": {"p": "."},
        "id": "c1",
        "thought_signature": "sig",
    }
    assert error_step(429, retry_delay="1s").error is not None


def test_command_line_serves_a_jsonl_script(tmp_path: Path) -> None:
    script = tmp_path / "steps.jsonl"
    script.write_text('{"text": "from the script"}\n\n{"error": {"status": 500}}\n')
    cmd = [sys.executable, "-m", "gemtui.testing.mockllm", "--port", "0", "--script", str(script)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        match = re.fullmatch(r"mockllm listening on (http://127\.0\.0\.1:\d+)\n", first)
        assert match, first
        url = match.group(1)
        r = httpx.post(url + STREAM, json={})
        assert json.loads(data_lines(r.content)[0])["candidates"][0]["content"]["parts"] == [
            {"text": "from the script"}
        ]
        assert httpx.post(url + STREAM, json={}).status_code == 500
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err
    assert "Warning" not in err


def test_json_list_script_with_loop(tmp_path: Path) -> None:
    from gemtui.testing import load_script

    script = tmp_path / "steps.json"
    script.write_text(json.dumps([{"text": "one"}, {"count_tokens": 5}]))
    steps = load_script(script)
    assert [s.text for s in steps] == ["one", None]
    with MockLLMServer.in_thread(steps, loop=True) as srv:
        texts = [
            json.loads(data_lines(httpx.post(srv.url + STREAM, json={}).content)[0])
            for _ in range(2)
        ]
        count = httpx.post(srv.url + "/v1beta/models/m:countTokens", json={}).json()
    assert [t["candidates"][0]["content"]["parts"] for t in texts] == [[{"text": "one"}]] * 2
    assert count == {"totalTokens": 5}
