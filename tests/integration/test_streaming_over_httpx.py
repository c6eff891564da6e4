"""Model streams over httpx's own transport, against real servers on 127.0.0.1.

What a person relies on when a model answers over the network, whoever carries the
bytes: a paid request is never sent twice, a stall ends, a broken answer fails rather
than passes as a short one, an error answer says what went wrong, certificates are
checked, and a proxy named in the environment is used. Each test opens streams through
``open_stream`` (the adapters' entry point) on a ``make_client`` client, against a
server written to misbehave in one way. The server counts connections, so reuse (and
its refusal) is seen from the other end of the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import trustme

from gemtui.errors import ApiError, TransportError
from gemtui.providers.http import (
    PRECONNECT_PATH,
    PRECONNECT_READ_LIMIT,
    make_client,
    open_stream,
    preconnect,
)
from gemtui.testing.mock_http import RecordedRequest, chunked, head, read_request

Handler = Callable[
    [RecordedRequest, asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[bool]
]
"""Answers one request on connection number N; False closes the connection."""

FRAMES = [b'data: {"n": %d}\n\n' % i for i in range(50)]
SSE = (("content-type", "text/event-stream"), ("transfer-encoding", "chunked"))


class _Server:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.requests: list[tuple[int, RecordedRequest]] = []
        self.ended: asyncio.Queue[int] = asyncio.Queue()
        self.port = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            while (request := await read_request(reader)) is not None:
                self.requests.append((number, request))
                if not await self.handler(request, reader, writer, number):
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, ssl.SSLError):
                await writer.wait_closed()  # the socket is shut: "ended" means closed
            self.ended.put_nowait(number)


@asynccontextmanager
async def _serving(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[_Server]:
    server = _Server(handler)
    listener = await asyncio.start_server(server.serve, "127.0.0.1", 0, ssl=tls)
    server.port = listener.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listener.close()


async def _sse(
    request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
) -> bool:
    writer.write(head(200, SSE) + b"".join(chunked(f) for f in FRAMES) + b"0\r\n\r\n")
    await writer.drain()
    return True


async def _body(client: httpx.AsyncClient, url: str) -> bytes:
    async with open_stream(client, url, {"q": 1}, {}) as response:
        return b"".join([part async for part in response.aiter_raw()])


def _url(server: _Server, scheme: str = "http", host: str = "127.0.0.1") -> str:
    return f"{scheme}://{host}:{server.port}/v1/stream"


async def test_streams_are_read_whole_and_share_one_connection() -> None:
    client = make_client()
    async with _serving(_sse) as server:
        for _ in range(3):
            assert await _body(client, _url(server)) == b"".join(FRAMES)
        assert server.connections == 1
        assert [r.json for _, r in server.requests] == [{"q": 1}] * 3
        assert server.requests[0][1].headers["accept"] == "text/event-stream"
    await client.aclose()


async def test_a_server_that_says_close_is_not_asked_again_on_that_connection() -> None:
    async def close(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        writer.write(head(200, SSE, close=True) + chunked(b"data: 1\n\n") + b"0\r\n\r\n")
        return True  # and then keeps it open: the client must not use it again anyway

    client = make_client()
    async with _serving(close) as server:
        assert await _body(client, _url(server)) == b"data: 1\n\n"
        assert await _body(client, _url(server)) == b"data: 1\n\n"
        assert server.connections == 2
    await client.aclose()


async def test_a_stream_given_up_half_way_closes_its_connection() -> None:
    async def endless(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        if n == 2:
            return await _sse(request, reader, writer, n)
        writer.write(head(200, SSE) + chunked(b"data: first\n\n"))
        await writer.drain()
        assert await reader.read() == b""  # the client hung up: nothing more came
        return False

    client = make_client()
    async with _serving(endless) as server:
        async with open_stream(client, _url(server), {}, {}) as response:
            async for part in response.aiter_raw():
                assert part == b"data: first\n\n"
                break
        assert await asyncio.wait_for(server.ended.get(), 10) == 1
        assert await _body(client, _url(server)) == b"".join(FRAMES)
        assert server.connections == 2
    await client.aclose()


async def test_a_model_call_the_server_took_and_dropped_is_not_sent_again() -> None:
    """A POST written on a kept connection that then closes unanswered may have been
    acted on (and paid for): it fails, as httpx fails it, and is not sent twice."""

    async def drops(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        if len(server.requests) == 2:
            return False  # the second request on the first connection: closed unanswered
        return await _sse(request, reader, writer, n)

    client = make_client()
    async with _serving(drops) as server:
        assert await _body(client, _url(server)) == b"".join(FRAMES)
        with pytest.raises(TransportError, match="disconnected without sending a response"):
            await _body(client, _url(server))
        assert [n for n, _ in server.requests] == [1, 1]
        assert await _body(client, _url(server)) == b"".join(FRAMES)  # and then a new one
        assert [n for n, _ in server.requests] == [1, 1, 2]
    await client.aclose()


async def test_an_idle_connection_the_server_closed_is_not_used() -> None:
    """The server hangs up a kept connection between two answers: the next model call
    goes out on a new connection and is answered, not lost on the dead one."""

    async def once(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        await _sse(request, reader, writer, n)
        return False  # closed after the answer, without saying so in the head

    client = make_client()
    async with _serving(once) as server:
        assert await _body(client, _url(server)) == b"".join(FRAMES)
        assert await asyncio.wait_for(server.ended.get(), 10) == 1  # its socket is closed
        assert await _body(client, _url(server)) == b"".join(FRAMES)
        assert [n for n, _ in server.requests] == [1, 2]
    await client.aclose()


async def test_a_new_connection_closed_unanswered_fails_without_asking_again() -> None:
    async def hangs_up(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        return False

    client = make_client()
    async with _serving(hangs_up) as server:
        with pytest.raises(TransportError, match="disconnected without sending a response"):
            await _body(client, _url(server))
        assert len(server.requests) == 1
    await client.aclose()


async def test_a_stalled_stream_fails_after_the_read_timeout() -> None:
    async def stalls(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        writer.write(head(200, SSE) + chunked(b"data: 1\n\n"))
        await writer.drain()
        await reader.read()  # until the client gives up
        return False

    client = make_client(read_timeout=0.3)
    async with _serving(stalls) as server:
        with pytest.raises(TransportError, match="ReadTimeout"):
            await _body(client, _url(server))
        assert await asyncio.wait_for(server.ended.get(), 10) == 1
    await client.aclose()


@pytest.mark.parametrize(
    "tail",
    [b"5\r\nab\r\n", b"zz\r\n", b"2\r\nabXX0\r\n\r\n", b"0\r\nbad trailer\r\n\r\n"],
    ids=["short-chunk-then-close", "not-hex", "no-crlf", "bad-trailer"],
)
async def test_broken_framing_fails_the_stream_and_closes_the_connection(tail: bytes) -> None:
    async def breaks(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        writer.write(head(200, SSE) + chunked(b"data: 1\n\n") + tail)
        await writer.drain()
        if tail.startswith(b"5"):
            return False  # the body ends early: the server closes
        await reader.read()
        return False

    client = make_client()
    async with _serving(breaks) as server:
        with pytest.raises(TransportError, match="RemoteProtocolError"):
            await _body(client, _url(server))
        assert await asyncio.wait_for(server.ended.get(), 10) == 1
    await client.aclose()


async def test_a_length_body_is_reused_and_a_body_to_the_close_is_not() -> None:
    async def framed(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        if request.path.endswith("length"):
            writer.write(head(200, [("content-length", "9")]) + b"data: 1\n\n")
            return True
        writer.write(b"HTTP/1.0 200 OK\r\n\r\ndata: 2\n\n")
        return False

    client = make_client()
    async with _serving(framed) as server:
        base = f"http://127.0.0.1:{server.port}/"
        assert await _body(client, base + "length") == b"data: 1\n\n"
        assert await _body(client, base + "length") == b"data: 1\n\n"
        assert server.connections == 1
        assert await _body(client, base + "close") == b"data: 2\n\n"
        assert await _body(client, base + "close") == b"data: 2\n\n"
        # The first body to the close still rode the kept connection; after it, a new one.
        assert [n for n, _ in server.requests] == [1, 1, 1, 2]
    await client.aclose()


async def test_an_error_answer_is_raised_and_its_connection_kept() -> None:
    async def refuses_once(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        if len(server.requests) > 1:
            return await _sse(request, reader, writer, n)
        body = b'{"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}'
        length = ("content-length", str(len(body)))
        writer.write(head(429, [("content-type", "application/json"), length]) + body)
        return True

    client = make_client()
    async with _serving(refuses_once) as server:
        with pytest.raises(ApiError, match="slow down"):
            await _body(client, _url(server))
        assert await _body(client, _url(server)) == b"".join(FRAMES)
        assert server.connections == 1
    await client.aclose()


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


def _tls_server(ca: trustme.CA, *names: str) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*names).configure_cert(context)
    return context


async def test_tls_streams_verify_the_certificate_against_the_trusted_cas(
    ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _serving(_sse, _tls_server(ca, "localhost")) as server:
        client = make_client()  # certifi's CAs: this CA is not among them
        with pytest.raises(TransportError, match="CERTIFICATE_VERIFY_FAILED"):
            await _body(client, _url(server, "https", "localhost"))
        await client.aclose()

        pem = tmp_path / "ca.pem"
        ca.cert_pem.write_to_path(str(pem))
        monkeypatch.setenv("SSL_CERT_FILE", str(pem))
        client = make_client()
        assert await _body(client, _url(server, "https", "localhost")) == b"".join(FRAMES)
        assert await _body(client, _url(server, "https", "localhost")) == b"".join(FRAMES)
        assert server.connections == 1  # the refused handshake never reached it; one kept
        await client.aclose()


async def test_tls_refuses_a_certificate_for_another_name(
    ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    async with _serving(_sse, _tls_server(ca, "api.example.test")) as server:
        client = make_client()
        with pytest.raises(TransportError, match=r"match|mismatch"):
            await _body(client, _url(server, "https", "localhost"))
        assert server.requests == []
        await client.aclose()


async def test_with_a_proxy_in_the_environment_streams_go_through_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []

    async def proxy(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        seen.append(request.headers["host"])
        return await _sse(request, reader, writer, n)

    async with _serving(proxy) as server:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        client = make_client()
        # The name never resolves here: only the proxy (on 127.0.0.1) is ever asked.
        assert await _body(client, "http://model.invalid/v1/stream") == b"".join(FRAMES)
        assert seen == ["model.invalid"]
        await client.aclose()


async def test_a_host_named_in_no_proxy_is_asked_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A local model server behind a proxy setting: ``NO_PROXY`` sends it past the proxy
    (and the proxy, asked for the same address without it, shows the setting works)."""
    async with _serving(_sse) as proxy, _serving(_sse) as model:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        monkeypatch.delenv("no_proxy", raising=False)
        client = make_client()
        assert await _body(client, _url(model)) == b"".join(FRAMES)
        assert (len(model.requests), len(proxy.requests)) == (1, 0)
        await client.aclose()

        monkeypatch.delenv("NO_PROXY")
        client = make_client()
        assert await _body(client, _url(model)) == b"".join(FRAMES)
        assert (len(model.requests), len(proxy.requests)) == (1, 1)
        await client.aclose()


def _early_then_sse(early_body: bytes) -> Handler:
    """Answers the early connection's ``GET`` with a 404 carrying ``early_body``, then SSE."""

    async def answer(
        request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> bool:
        if request.path == PRECONNECT_PATH:
            length = (("content-length", str(len(early_body))),)
            writer.write(head(404, length) + early_body)
            await writer.drain()
            return True
        return await _sse(request, reader, writer, n)

    return answer


async def test_the_early_connection_carries_the_first_stream() -> None:
    client = make_client()
    async with _serving(_early_then_sse(b"Not Found")) as server:
        await preconnect(client, _url(server))
        assert await _body(client, _url(server)) == b"".join(FRAMES)
        [(first, early), (second, stream)] = server.requests
        assert (early.method, early.path, "authorization" in early.headers) == (
            "GET",
            PRECONNECT_PATH,
            False,
        )
        assert (first, second, stream.json) == (1, 1, {"q": 1})
    await client.aclose()


async def test_an_early_answer_too_long_to_read_is_dropped_and_the_stream_connects() -> None:
    """A server whose answer to the early request does not end soon (a catch-all page)
    is not read to its end: that connection closes, the stream opens its own, once."""
    client = make_client()
    async with _serving(_early_then_sse(b"x" * (PRECONNECT_READ_LIMIT * 4))) as server:
        await preconnect(client, _url(server))
        assert await _body(client, _url(server)) == b"".join(FRAMES)
        assert [n for n, _ in server.requests] == [1, 2]
        assert server.connections == 2
    await client.aclose()


async def test_an_early_connection_to_nothing_is_quiet() -> None:
    """Nothing listens: the early request fails without a word (the prompt then says so)."""
    listener = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    listener.close()
    await listener.wait_closed()
    client = make_client()
    await preconnect(client, f"http://127.0.0.1:{port}/v1")
    with pytest.raises(TransportError):
        await _body(client, f"http://127.0.0.1:{port}/v1/stream")
    await client.aclose()


@pytest.mark.parametrize(("idle", "connections"), [(50.0, 1), (70.0, 2)])
async def test_the_early_connection_waits_a_minute_for_the_first_prompt(
    monkeypatch: pytest.MonkeyPatch, idle: float, connections: int
) -> None:
    """A person takes longer than httpx's 5 s to type a first prompt: the connection
    opened for it is kept idle for a minute (the clock httpx reads is moved on, not
    waited out); past that it is closed and the stream opens its own."""
    from httpcore._async import http11

    client = make_client()
    async with _serving(_early_then_sse(b"Not Found")) as server:
        await preconnect(client, _url(server))
        now = http11.time.monotonic() + idle
        monkeypatch.setattr(http11.time, "monotonic", lambda: now)
        assert await _body(client, _url(server)) == b"".join(FRAMES)
        assert server.connections == connections
    await client.aclose()
