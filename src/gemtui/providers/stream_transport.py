"""Model streams over a small HTTP/1.1 transport that hands the body over in bulk.

Why: httpx reads a body through httpcore and h11, which turn every HTTP chunk into one
event passed up half a dozen async generators. A model's answer is thousands of tiny
chunks, so that was most of the time a stream took. For the requests marked as model
streams (``STREAM``), this transport writes the request and parses the response head
with h11 itself (the same validation and size limits), then decodes the body with
``chunked``, one network read at a time. Everything else, and every request when the
environment names a proxy (``make_client`` decides), goes to httpx's own transport.

Connections are kept alive and reused like httpcore's: only after a body read to its
end with nothing after it, from an HTTP/1.1 server that did not say ``close``, and for
five seconds at most. A stream given up half-way closes its connection. A kept
connection found closed before the request went out is replaced by a new one; a request
already written is sent again only if sending it twice does no harm (never a model
call, a POST). TLS uses the client's own context, so certificates and host names are
verified the same way. Timeouts are httpx's: connect, write, and read (per network read).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator
from typing import Any

import h11
import httpx

from gemtui.providers.chunked import BodyError, ChunkedBody, LengthBody

__all__ = ["STREAM", "StreamTransport"]

STREAM = "gemtui.stream"
"""The request extension that marks a model stream for this transport."""

MAX_BUFFERED = 1 << 20
"""Bytes received but not yet read, past which the socket is not read: a slow consumer
slows the server down, it does not fill memory."""
MAX_IDLE = 4
"""Idle connections kept per host."""
KEEPALIVE_EXPIRY = 5.0
"""Seconds an idle connection is kept (httpcore's figure): a NAT or a firewall may drop
one silently, and a request sent on it would wait out the whole read timeout."""
_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})

_Key = tuple[str, str, int]


class _Stale(Exception):
    """A kept connection the server had closed: the request may go on a new one."""


class _Wire(asyncio.Protocol):
    """One connection's bytes: what came in waits here until it is read."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._parts: list[bytes] = []
        self._size = 0
        self._paused = False
        self._waiter: asyncio.Future[None] | None = None
        self._drain: asyncio.Future[None] | None = None
        self.eof = False
        self.error: BaseException | None = None
        self.loop = asyncio.get_running_loop()
        self.idle_since = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self._parts.append(data)
        self._size += len(data)
        if self._size > MAX_BUFFERED and not self._paused and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)

    def pause_writing(self) -> None:
        self._drain = self.loop.create_future()

    def resume_writing(self) -> None:
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)
        self._drain = None

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    @property
    def ended(self) -> bool:
        """The server closed and every byte it sent has been read."""
        return self.eof and not self._parts

    @property
    def reusable(self) -> bool:
        """Still open, on this loop, and nothing unasked-for arrived while it was idle."""
        return (
            not self.eof
            and not self._parts
            and self.transport is not None
            and not self.transport.is_closing()
            and self.loop is asyncio.get_running_loop()
        )

    async def write(self, data: bytes, seconds: float | None) -> None:
        assert self.transport is not None
        if self.eof:
            raise ConnectionResetError("the connection was closed")
        self.transport.write(data)
        if self._drain is not None:
            async with asyncio.timeout(seconds):
                await self._drain

    async def read(self, seconds: float | None) -> bytes:
        """Everything received since the last read; ``b""`` once the server closed."""
        if not self._parts and not self.eof:
            self._waiter = self.loop.create_future()
            try:
                async with asyncio.timeout(seconds):
                    await self._waiter
            finally:
                self._waiter = None
        if self._parts:
            data = self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
            self._parts.clear()
            self._size = 0
            if self._paused and self.transport is not None:
                self._paused = False
                self.transport.resume_reading()
            return data
        if self.error is not None:
            raise self.error
        return b""

    def close(self) -> None:
        if self.transport is not None:
            with contextlib.suppress(RuntimeError):  # its event loop has already closed
                self.transport.close()


class _Body(httpx.AsyncByteStream):
    """A response body, decoded a network read at a time."""

    def __init__(
        self,
        owner: StreamTransport,
        key: _Key,
        wire: _Wire,
        decoder: ChunkedBody | LengthBody | None,
        start: bytes,
        keep_alive: bool,
        read_timeout: float | None,
        request: httpx.Request,
    ) -> None:
        self._owner, self._key, self._wire = owner, key, wire
        self._decoder, self._start, self._keep_alive = decoder, start, keep_alive
        self._timeout, self._request = read_timeout, request
        self._closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        decoder, data = self._decoder, self._start
        self._start = b""
        try:
            while True:
                if decoder is None:  # the body runs to the end of the connection
                    if data:
                        yield data
                    elif self._wire.ended:
                        return
                elif data or decoder.done:
                    body = decoder.feed(data)
                    if body:
                        yield body
                    if decoder.done:
                        return
                elif self._wire.ended:
                    raise httpx.RemoteProtocolError(
                        "peer closed connection without sending complete message body: "
                        + decoder.incomplete,
                        request=self._request,
                    )
                data = await _read(self._wire, self._timeout, self._request)
        except BodyError as exc:  # the decoder is not done: aclose closes the connection
            raise httpx.RemoteProtocolError(str(exc), request=self._request) from exc

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        decoder = self._decoder
        if (
            self._keep_alive
            and decoder is not None
            and decoder.done
            and not decoder.extra
            and self._wire.reusable
        ):
            self._owner.keep(self._key, self._wire)
        else:
            self._wire.close()


async def _read(wire: _Wire, seconds: float | None, request: httpx.Request) -> bytes:
    try:
        return await wire.read(seconds)
    except TimeoutError as exc:
        wire.close()
        raise httpx.ReadTimeout("timed out waiting for the server", request=request) from exc
    except OSError as exc:
        raise httpx.ReadError(str(exc) or type(exc).__name__, request=request) from exc


class StreamTransport(httpx.AsyncBaseTransport):
    """Model streams (requests with the ``STREAM`` extension) here; the rest to ``fallback``."""

    def __init__(
        self,
        fallback: httpx.AsyncBaseTransport,
        ssl_context: ssl.SSLContext,
        *,
        keepalive_expiry: float = KEEPALIVE_EXPIRY,
    ) -> None:
        self._fallback = fallback
        self._ssl = ssl_context
        self._expiry = keepalive_expiry
        self._idle: dict[_Key, list[_Wire]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if not request.extensions.get(STREAM) or url.scheme not in ("http", "https"):
            return await self._fallback.handle_async_request(request)
        port = url.port or (443 if url.scheme == "https" else 80)
        # The ASCII (IDNA 2008) name, as httpx sends it in Host: never the stdlib's own
        # IDNA 2003 encoding of the Unicode one, which can name another host.
        host = url.raw_host.decode("ascii").strip("[]")
        key: _Key = (url.scheme, host, port)
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        content = await request.aread()
        wire = self._take(key)
        if wire is not None:
            try:
                return await self._exchange(key, wire, request, content, timeouts, reused=True)
            except _Stale:
                wire.close()
        wire = await self._connect(key, request, timeouts.get("connect"))
        return await self._exchange(key, wire, request, content, timeouts, reused=False)

    def _take(self, key: _Key) -> _Wire | None:
        idle = self._idle.get(key)
        while idle:
            wire = idle.pop()
            if wire.reusable and wire.loop.time() - wire.idle_since < self._expiry:
                return wire
            wire.close()
        return None

    def keep(self, key: _Key, wire: _Wire) -> None:
        wire.idle_since = wire.loop.time()
        idle = self._idle.setdefault(key, [])
        idle.append(wire)
        while len(idle) > MAX_IDLE:
            idle.pop(0).close()

    async def _connect(self, key: _Key, request: httpx.Request, seconds: float | None) -> _Wire:
        scheme, host, port = key
        loop = asyncio.get_running_loop()
        tls = self._ssl if scheme == "https" else None
        try:
            async with asyncio.timeout(seconds):
                _, wire = await loop.create_connection(
                    _Wire, host, port, ssl=tls, server_hostname=host if tls else None
                )
        except TimeoutError as exc:
            raise httpx.ConnectTimeout(f"timed out connecting to {host}", request=request) from exc
        except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError; bad names raise
            raise httpx.ConnectError(str(exc) or type(exc).__name__, request=request) from exc
        return wire

    async def _exchange(
        self,
        key: _Key,
        wire: _Wire,
        request: httpx.Request,
        content: bytes,
        timeouts: dict[str, float | None],
        *,
        reused: bool,
    ) -> httpx.Response:
        h = h11.Connection(h11.CLIENT)
        read_timeout = timeouts.get("read")
        # Once written, a request the server may have acted on (a model call is paid
        # for) is only asked again if asking twice does no harm (RFC 9112, 9.3.1).
        retry = reused and request.method in _IDEMPOTENT
        try:
            await _send(h, wire, request, content, timeouts.get("write"), reused=reused)
            event = await _read_head(h, wire, request, read_timeout, retry=retry)
            return self._response(key, wire, request, h, event, read_timeout)
        except BaseException:
            wire.close()
            raise

    def _response(
        self,
        key: _Key,
        wire: _Wire,
        request: httpx.Request,
        h: h11.Connection,
        event: h11.Response,
        read_timeout: float | None,
    ) -> httpx.Response:
        headers = httpx.Headers(event.headers)
        keep_alive = (
            event.http_version == b"1.1"
            and not _says_close(headers.get_list("connection"))
            and not _says_close(request.headers.get_list("connection"))
        )
        decoder: ChunkedBody | LengthBody | None
        if event.status_code in (204, 304) or request.method == "HEAD":
            decoder = LengthBody(0)
        elif "transfer-encoding" in headers:
            decoder = ChunkedBody()  # h11 accepted the head: chunked is the only coding
            # With a Content-Length too, the two framings disagree: not trusted again.
            keep_alive = keep_alive and "content-length" not in headers
        elif "content-length" in headers:
            decoder = LengthBody(int(headers["content-length"]))  # h11 checked it is one
        else:
            decoder, keep_alive = None, False
        start, _ = h.trailing_data
        body = _Body(self, key, wire, decoder, start, keep_alive, read_timeout, request)
        return httpx.Response(
            status_code=event.status_code,
            headers=event.headers.raw_items(),
            stream=body,
            extensions={
                "http_version": b"HTTP/" + event.http_version,
                "reason_phrase": event.reason,
            },
        )

    async def aclose(self) -> None:
        for idle in self._idle.values():
            for wire in idle:
                wire.close()
        self._idle.clear()
        await self._fallback.aclose()


async def _send(
    h: h11.Connection,
    wire: _Wire,
    request: httpx.Request,
    content: bytes,
    seconds: float | None,
    *,
    reused: bool,
) -> None:
    try:
        data = h.send(
            h11.Request(
                method=request.method, target=request.url.raw_path, headers=request.headers.raw
            )
        )
        if content:
            data = (data or b"") + (h.send(h11.Data(data=content)) or b"")
        data = (data or b"") + (h.send(h11.EndOfMessage()) or b"")
    except h11.LocalProtocolError as exc:
        raise httpx.LocalProtocolError(str(exc), request=request) from exc
    try:
        await wire.write(data, seconds)
    except TimeoutError as exc:
        raise httpx.WriteTimeout("timed out sending the request", request=request) from exc
    except OSError as exc:
        if reused:  # closed before the request went out: nothing was asked
            raise _Stale from exc
        raise httpx.WriteError(str(exc) or type(exc).__name__, request=request) from exc


async def _read_head(
    h: h11.Connection, wire: _Wire, request: httpx.Request, seconds: float | None, *, retry: bool
) -> h11.Response:
    """The response's head, past any 1xx; ``_Stale`` if the connection closed before a
    byte of it came and ``retry`` allows asking again."""
    got_any = False
    while True:
        try:
            event: Any = h.next_event()
        except h11.RemoteProtocolError as exc:
            raise httpx.RemoteProtocolError(str(exc), request=request) from exc
        if isinstance(event, h11.Response):
            return event
        if isinstance(event, h11.InformationalResponse):
            continue
        if event is not h11.NEED_DATA:
            raise httpx.RemoteProtocolError(
                f"unexpected {type(event).__name__} before the response", request=request
            )
        try:
            chunk = await _read(wire, seconds, request)
        except httpx.ReadError:
            if retry and not got_any:
                raise _Stale from None
            raise
        if not chunk and not got_any:
            if retry:
                raise _Stale
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
        got_any = True
        h.receive_data(chunk)


def _says_close(values: list[str]) -> bool:
    return any(token.strip().lower() == "close" for value in values for token in value.split(","))
