"""A local server that is not running fails fast and says what was tried.

A refused connection on 127.0.0.1 means nothing listens on that port: it is tried again
after half a second and a second (a server may be starting), then the run fails naming the
URL — not after 14.5 s of the backoff meant for a busy remote API. Real transient errors
(a reset from a server that is there, a 503) keep the full policy. Real sockets throughout.
"""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path

import pytest

from gemtui.errors import NothingListeningError, RetryableApiError, TransportError
from gemtui.providers.http import make_client
from gemtui.providers.openai_compat import OpenAICompatGenerator
from gemtui.providers.retry import RetryingGenerator, RetryNotice, RetryPolicy
from gemtui.testing import MockLLMServer
from gemtui.wire import Content, GenerateContentRequest
from gemtui.wire.parts import response_text

from .helpers import gemtui_env, run_gemtui


def _dead_port() -> int:
    """A loopback port nobody listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _request() -> GenerateContentRequest:
    return GenerateContentRequest(contents=[Content.user("hi")])


async def _first_answer(generator: RetryingGenerator) -> str:
    chunks = [c async for c in generator.stream(_request(), model="qwen")]
    return "".join(response_text(c) for c in chunks)


def test_headless_run_against_a_dead_port_fails_in_under_3s_saying_what_it_tried(
    isolated_home: Path, workspace: Path
) -> None:
    port = _dead_port()
    env = gemtui_env(isolated_home, key=None)  # the default network settings: 3 attempts
    env["OPENAI_BASE_URL"] = f"http://127.0.0.1:{port}/v1"
    proc = run_gemtui(["-p", "hi", "--provider", "openai", "-m", "qwen"], env=env, cwd=workspace)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("gemtui:")]
    # progress while trying: each retry said, with what it tried
    assert f"nothing is listening on 127.0.0.1:{port}" in lines[0]
    assert "retrying in 0.5s (attempt 2/3)" in lines[0]
    assert "retrying in 1.0s (attempt 3/3)" in lines[1]
    final = lines[-1]
    assert final.startswith("gemtui: error: connection refused")
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in final
    # under 3 s by construction: refused at once, and only the 0.5 s and 1.0 s waits above
    assert re.search(r"tried 3 times in [\d.]+s", final) is not None, final


async def test_a_server_that_starts_during_the_wait_is_reached() -> None:
    port = _dead_port()
    servers: list[MockLLMServer] = []

    def start_server(notice: RetryNotice) -> None:
        assert isinstance(notice.error, NothingListeningError)
        if not servers:
            server = MockLLMServer([{"text": "up now"}], port=port)
            servers.append(server)
            starting.append(asyncio.ensure_future(server.start()))

    starting: list[asyncio.Future[None]] = []
    client = make_client()
    generator = RetryingGenerator(
        OpenAICompatGenerator(client, f"http://127.0.0.1:{port}/v1"), RetryPolicy(), start_server
    )
    try:
        assert await _first_answer(generator) == "up now"
    finally:
        await client.aclose()
        for server in servers:
            await server.stop()
    assert len(servers) == 1


async def test_a_reset_from_a_listening_server_keeps_the_full_policy() -> None:
    """Something listens and hangs up: that is transient, not "nothing there"."""
    resets = 0

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal resets
        resets += 1
        writer.transport.abort()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    notices: list[RetryNotice] = []
    policy = RetryPolicy(max_attempts=5, initial_delay=0.01, max_delay=0.02)
    client = make_client()
    generator = RetryingGenerator(
        OpenAICompatGenerator(client, f"http://127.0.0.1:{port}/v1"), policy, notices.append
    )
    try:
        with pytest.raises(TransportError) as caught:
            await _first_answer(generator)
    finally:
        await client.aclose()
        server.close()
        await server.wait_closed()
    assert not isinstance(caught.value, NothingListeningError)
    assert resets == 5
    assert len(notices) == 4


async def test_a_busy_server_still_gets_the_backoff(mock_llm: MockLLMServer) -> None:
    mock_llm.enqueue({"error": {"status": 503, "message": "loading model"}})
    mock_llm.enqueue({"text": "ready"})
    notices: list[RetryNotice] = []
    client = make_client()
    generator = RetryingGenerator(
        OpenAICompatGenerator(client, f"{mock_llm.url}/v1"),
        RetryPolicy(initial_delay=0.05, jitter=0.0),
        notices.append,
    )
    try:
        assert await _first_answer(generator) == "ready"
    finally:
        await client.aclose()
    assert len(notices) == 1
    assert isinstance(notices[0].error, RetryableApiError)
    assert notices[0].wait == pytest.approx(0.05)


async def test_the_message_never_shows_credentials_written_in_the_url() -> None:
    """A base_url may carry a user and password: the message names the server and the
    path, never those."""
    port = _dead_port()
    client = make_client()
    generator = RetryingGenerator(
        OpenAICompatGenerator(client, f"http://alice:s3cret-pw@127.0.0.1:{port}/v1"),
        RetryPolicy(refused_delay=0.01),
    )
    try:
        with pytest.raises(NothingListeningError) as caught:
            await _first_answer(generator)
    finally:
        await client.aclose()
    message = str(caught.value)
    assert f"nothing is listening on 127.0.0.1:{port}" in message
    assert f"(http://127.0.0.1:{port}/v1/chat/completions)" in message
    for secret in ("alice", "s3cret-pw"):
        assert secret not in message
        assert secret not in caught.value.url
