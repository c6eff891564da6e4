"""The HTTP/1.1 the mock server speaks, by hand: requests read whole (chunked bodies
too) and recorded, response heads, chunked frames, and a reset (RST) for fault tests.
By hand because the faults (a cut mid-frame, a stall, a reset) need the raw socket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

__all__ = ["RecordedRequest", "abort", "chunked", "head", "read_request"]


@dataclass(slots=True)
class RecordedRequest:
    """One request as the server received it (header names lower-cased)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    json: Any = None
    received_at: float = field(default_factory=time.monotonic)
    """``time.monotonic()`` when the whole request had been read (benchmarks use it)."""
    connection: int = 0
    """Which of the server's connections carried it (1 for the first; 0: not counted)."""


def chunked(data: bytes) -> bytes:
    return b"%X\r\n%b\r\n" % (len(data), data)


def head(status: int, headers: Iterable[tuple[str, str]], *, close: bool = False) -> bytes:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Status"
    lines = [f"HTTP/1.1 {status} {phrase}", *(f"{k}: {v}" for k, v in headers)]
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def abort(writer: asyncio.StreamWriter) -> None:
    """Reset the connection (RST, not FIN): SO_LINGER 0, then abort the transport."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = raw[:-4].decode("latin-1").split("\r\n")
    method, target, _version = [*lines[0].split(" ", 2), "", ""][:3]
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        key, value = name.strip().lower(), value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked_body(reader)
    else:
        length = int(headers.get("content-length") or 0)
        body = await reader.readexactly(length) if length else b""
    split = urlsplit(target)
    query = dict(parse_qsl(split.query, keep_blank_values=True))
    parsed: Any = None
    if body:
        with contextlib.suppress(ValueError):
            parsed = json.loads(body)
    return RecordedRequest(method, unquote(split.path), query, headers, body, parsed)


async def _read_chunked_body(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass  # trailers
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
