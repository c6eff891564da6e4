"""Reading server-sent events the way the wire demands, fast.

Lines end at CR, LF or CRLF only (never at U+2028, U+0085 and the other characters
``str.splitlines`` honours), so a JSON string holding them survives; a CR at the end of
one network chunk is held back in case its LF comes in the next. Frames are cut on the
blank line with plain ``str`` operations, which keeps the cost per frame to a few
microseconds on long streams.

A frame whose data is not valid JSON raises ``StreamError(kind="malformed")``: silently
skipping it would leave a hole in the answer, while the chat's stream retry regenerates
the whole answer and tells the views to discard the partial text.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import httpx

from gemtui.errors import StreamError

__all__ = [
    "MAX_FRAME_CHARS",
    "SseDecoder",
    "SseFrame",
    "check_held",
    "iter_sse_data",
    "iter_sse_json",
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


@dataclass(frozen=True, slots=True)
class SseFrame:
    """One server-sent event: its event name and data."""

    event: str
    data: Any


class SseDecoder:
    """Incremental SSE parser: feed text, get (event, data) for each complete frame.

    Text that cannot end a frame is only kept, not re-scanned, so a frame arriving in
    many pieces costs linear time; one that passes ``MAX_FRAME_CHARS`` without ending
    raises ``StreamError`` instead of growing without bound.
    """

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._last = ""
        """The last character kept: a frame ends where it and the next text make a blank line."""
        self._held_cr = False
        """A CR ended the last piece: the first half of a CRLF split across chunks, perhaps."""

    def feed(self, text: str) -> list[tuple[str, str]]:
        if self._held_cr:
            text, self._held_cr = "\r" + text, False
        if "\r" in text:
            if text.endswith("\r"):
                text, self._held_cr = text[:-1], True
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if not text:
            return []
        if "\n\n" not in text and not (self._last == "\n" and text[0] == "\n"):
            self._parts.append(text)
            self._size += len(text)
            self._last = text[-1]
            if self._size > MAX_FRAME_CHARS:
                raise StreamError(
                    f"an SSE frame passed {MAX_FRAME_CHARS:,} characters without ending",
                    kind="malformed",
                )
            return []
        buf = "".join(self._parts) + text
        end = buf.rfind("\n\n")
        complete, rest = buf[:end], buf[end + 2 :]
        self._parts = [rest] if rest else []
        self._size = len(rest)
        self._last = rest[-1:]
        frames: list[tuple[str, str]] = []
        for raw in complete.split("\n\n"):
            frame = _parse_frame(raw)
            if frame is not None:
                frames.append(frame)
        return frames

    def flush(self) -> list[tuple[str, str]]:
        """At the end of the stream a held-back CR is a line end; an unterminated last
        frame is incomplete by the spec and is dropped."""
        held, self._held_cr = self._held_cr, False
        frames = self.feed("\n") if held else []
        self._parts, self._size, self._last = [], 0, ""
        return frames


def _parse_frame(raw: str) -> tuple[str, str] | None:
    if raw.startswith("data:") and "\n" not in raw:  # the common case: one data line
        value = raw[5:]
        return "", value[1:] if value.startswith(" ") else value
    event = ""
    data: list[str] = []
    for line in raw.split("\n"):
        if not line or line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
    if not data and not event:
        return None
    return event, "\n".join(data)


async def iter_sse_data(response: httpx.Response) -> AsyncGenerator[tuple[str, str], None]:
    """Yield (event, data) of each frame with non-empty data, unparsed."""
    decoder = SseDecoder()
    async for text in response.aiter_text():
        for event, data in decoder.feed(text):
            if data.strip():
                yield event, data
    for event, data in decoder.flush():
        if data.strip():
            yield event, data


async def iter_sse_json(
    response: httpx.Response, *, done_marker: str | None = None
) -> AsyncGenerator[SseFrame, None]:
    """Yield each frame's parsed JSON; stop at ``done_marker`` (OpenAI's ``[DONE]``)."""
    async with aclosing(iter_sse_data(response)) as frames:
        async for event, data in frames:
            if done_marker is not None and data.strip() == done_marker:
                return
            try:
                parsed = json.loads(data)
            except ValueError as exc:
                raise StreamError(
                    f"malformed SSE frame from server: {data[:120]!r}", kind="malformed"
                ) from exc
            yield SseFrame(event, parsed)
