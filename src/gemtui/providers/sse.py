"""Reading server-sent events the way the wire demands, fast.

The decoder works on the raw bytes of the body, not on decoded text: SSE is UTF-8 by
the spec and every byte that ends a line is ASCII, so frames are cut with C-level
``bytes`` searches, and each frame's data is decoded once, whole, by whoever parses it
(a multi-byte character split across two network reads is never decoded in halves).
A read that is exactly one one-line frame, which is how servers write a stream, is cut
with a few checks and no copy of the text. ``read_frames_ahead`` hands the provider,
each time it asks, every frame read since (see ``read_ahead``).

Lines end at CR, LF or CRLF only (never at U+2028, U+0085 and the other characters
``str.splitlines`` honours), so a JSON string holding them survives; a CR at the end of
one network chunk is held back in case its LF comes in the next.

A frame whose data is not valid JSON raises ``StreamError(kind="malformed")``: silently
skipping it would leave a hole in the answer, while the chat's stream retry regenerates
the whole answer and tells the views to discard the partial text.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Any

import httpx
from msgspec import Struct

from gemtui.errors import StreamError
from gemtui.providers.read_ahead import read_ahead

__all__ = [
    "FRAMES_PER_STEP",
    "MAX_BYTES_AHEAD",
    "MAX_FRAME_CHARS",
    "SseDecoder",
    "SseFrame",
    "check_held",
    "frame_text",
    "iter_sse_data",
    "iter_sse_json",
    "malformed",
    "parse_json",
    "read_frames_ahead",
]

MAX_FRAME_CHARS = 16 * 1024 * 1024
"""No real frame comes near this; a server sending one that never ends is broken."""


def check_held(total: int) -> None:
    """Stop a stream whose held-back text (a call's arguments, sent in pieces and only
    parsed at the end) passed ``MAX_FRAME_CHARS``: no chunk carries it to the chat's
    answer cap, so it is bounded here."""
    if total > MAX_FRAME_CHARS:
        raise StreamError(
            f"the model's tool-call arguments passed {MAX_FRAME_CHARS:,} characters",
            kind="too_long",
        )


def frame_text(data: bytes) -> str:
    """A frame's data as text; bytes that are not UTF-8 become U+FFFD, as a text
    decoder of the body would make them."""
    return data.decode("utf-8", "replace")


def malformed(data: bytes) -> StreamError:
    """The error for a frame whose data is not what the wire promises."""
    return StreamError(
        f"malformed SSE frame from server: {frame_text(data)[:120]!r}", kind="malformed"
    )


class SseFrame(Struct, frozen=True):
    """One server-sent event: its event name and data."""

    event: str
    data: Any


class SseDecoder:
    """Incremental SSE parser: feed bytes, get (event, data) for each complete frame.

    Bytes that cannot end a frame are only kept, not re-scanned, so a frame arriving in
    many pieces costs linear time; one that passes ``MAX_FRAME_CHARS`` without ending
    raises ``StreamError`` instead of growing without bound.
    """

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._size = 0
        self._last_lf = False
        """The last byte kept is a LF: a frame ends if the next piece starts with one."""
        self._held_cr = False
        """A CR ended the last piece: the first half of a CRLF split across reads, perhaps."""

    def feed(self, chunk: bytes) -> list[tuple[str, bytes]]:
        if not (self._parts or self._held_cr):
            one = _one_data_frame(chunk)
            if one is not None:
                return [("", one)]
        if self._held_cr:
            chunk, self._held_cr = b"\r" + chunk, False
        if b"\r" in chunk:
            if chunk.endswith(b"\r"):
                chunk, self._held_cr = chunk[:-1], True
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if not chunk:
            return []
        if b"\n\n" not in chunk and not (self._last_lf and chunk[0] == 10):
            self._parts.append(chunk)
            self._size += len(chunk)
            self._last_lf = chunk[-1] == 10
            if self._size > MAX_FRAME_CHARS:
                raise StreamError(
                    f"an SSE frame passed {MAX_FRAME_CHARS:,} characters without ending",
                    kind="malformed",
                )
            return []
        buf = b"".join(self._parts) + chunk if self._parts else chunk
        end = buf.rfind(b"\n\n")
        complete, rest = buf[:end], buf[end + 2 :]
        self._parts = [rest] if rest else []
        self._size = len(rest)
        self._last_lf = rest[-1:] == b"\n"
        plain = _plain_data_frames(complete)
        if plain is not None:
            return [("", data) for data in plain]
        frames: list[tuple[str, bytes]] = []
        for raw in complete.split(b"\n\n"):
            frame = _parse_frame(raw)
            if frame is not None:
                frames.append(frame)
        return frames

    def flush(self) -> list[tuple[str, bytes]]:
        """At the end of the stream a held-back CR is a line end; an unterminated last
        frame is incomplete by the spec and is dropped."""
        held, self._held_cr = self._held_cr, False
        frames = self.feed(b"\n") if held else []
        self._parts, self._size, self._last_lf = [], 0, False
        return frames


def _one_data_frame(chunk: bytes) -> bytes | None:
    """The data of a chunk that is exactly one frame of one data line (how servers
    write a stream: a frame a write), found with a few C-level checks; else None."""
    if not chunk.startswith(b"data:"):
        return None
    start = 6 if chunk[5:6] == b" " else 5
    crlf = chunk.endswith(b"\r\n\r\n")
    if crlf and chunk.count(b"\n") == 2 and chunk.count(b"\r") == 2:
        return chunk[start:-4]  # the only CRs and LFs are the last four
    if not crlf and chunk.endswith(b"\n\n") and chunk.count(b"\n") == 2 and b"\r" not in chunk:
        return chunk[start:-2]  # the only line ends are the last two LFs
    return None


def _plain_data_frames(complete: bytes) -> list[bytes] | None:
    """The data of frames that are each one ``data: `` line (how servers write a
    stream), cut from a read of many with a few C-level passes; else None.

    ``complete`` holds whole frames, LF-only, without the last frame's blank line."""
    if not complete.startswith(b"data: "):
        return None
    frames = complete.count(b"\n\n") + 1
    if complete.count(b"\n") != 2 * (frames - 1):  # a line that is not a frame's only one
        return None
    data = complete[6:].split(b"\n\ndata: ")
    return data if len(data) == frames else None


def _parse_frame(raw: bytes) -> tuple[str, bytes] | None:
    if raw.startswith(b"data:") and b"\n" not in raw:  # the common case: one data line
        return "", raw[6:] if raw.startswith(b"data: ") else raw[5:]
    event = ""
    data: list[bytes] = []
    for line in raw.split(b"\n"):
        if not line or line.startswith(b":"):
            continue
        name, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            data.append(value)
        elif name == b"event":
            event = frame_text(value)
    if not data and not event:
        return None
    return event, b"\n".join(data)


def _blank(data: bytes) -> bool:
    """Data of only whitespace (a keep-alive): skipped, as the text decoder's ``strip``
    did; a non-ASCII first byte may still be Unicode whitespace, so only then decode."""
    stripped = data.strip()
    return not stripped or (stripped[0] >= 0x80 and not frame_text(stripped).strip())


async def iter_sse_data(response: httpx.Response) -> AsyncGenerator[tuple[str, bytes], None]:
    """Yield (event, data) of each frame with non-empty data, unparsed.

    ``aiter_bytes`` (not ``aiter_raw``) so a compressed body is still inflated."""
    decoder = SseDecoder()
    async for chunk in response.aiter_bytes():
        for event, data in decoder.feed(chunk):
            if not _blank(data):
                yield event, data
    for event, data in decoder.flush():
        if not _blank(data):
            yield event, data


MAX_BYTES_AHEAD = 1 << 20
"""Bytes read but not yet taken by the provider, past which the reading waits: far more
than a network read brings, far less than 512 frames of ``MAX_FRAME_CHARS``."""


FRAMES_PER_STEP = 64
"""Frames handed on at once at most: a flood read in one go (a fast local server, a
reader that got ahead while the screen drew) is parsed and turned into events in steps,
with the event loop's turn between them, so the screen's frames (the answer's first
line among them) are drawn while it comes, not once all of it has."""


async def read_frames_ahead(
    response: httpx.Response,
) -> AsyncGenerator[list[tuple[str, bytes]], None]:
    """Yield (event, data) of the non-empty frames of everything read since the provider
    last came back, as one list: the body is read ahead (``read_ahead``), bounded by
    ``MAX_BYTES_AHEAD``, and the frames are cut once per batch, not once per read."""
    decoder = SseDecoder()
    reads = read_ahead(_body(response), max_waiting=MAX_BYTES_AHEAD, weigh=len)
    async with aclosing(reads):
        async for chunks in reads:
            frames = decoder.feed(chunks[0] if len(chunks) == 1 else b"".join(chunks))
            batch = _non_blank(frames)
            for start in range(0, len(batch), FRAMES_PER_STEP):
                if start:  # a flood: the loop gets a turn (the screen's frame) between
                    await asyncio.sleep(0)
                yield batch[start : start + FRAMES_PER_STEP]
    batch = _non_blank(decoder.flush())
    if batch:
        yield batch


def _body(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body's bytes: a compressed body inflated, any other read as it came, without
    the decoding layer that would pass it through unchanged one read at a time."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding == "identity" and not response.is_stream_consumed:
        return response.aiter_raw()
    return response.aiter_bytes()  # also a body already read (a test double, a hook's aread)


def _non_blank(frames: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    return [frame for frame in frames if not _blank(frame[1])]


def parse_json(data: bytes) -> Any:
    """A frame's data as JSON, or ``StreamError(kind="malformed")``."""
    try:
        return json.loads(frame_text(data))
    except ValueError as exc:
        raise malformed(data) from exc


async def iter_sse_json(
    response: httpx.Response, *, done_marker: str | None = None
) -> AsyncGenerator[SseFrame, None]:
    """Yield each frame's parsed JSON; stop at ``done_marker`` (OpenAI's ``[DONE]``)."""
    marker = done_marker.encode() if done_marker is not None else None
    async with aclosing(iter_sse_data(response)) as frames:
        async for event, data in frames:
            if marker is not None and data.strip() == marker:
                return
            yield SseFrame(event, parse_json(data))
