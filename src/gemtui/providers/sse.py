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
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from gemtui.errors import StreamError

__all__ = ["SseDecoder", "SseFrame", "iter_sse_data", "iter_sse_json"]


@dataclass(frozen=True, slots=True)
class SseFrame:
    event: str
    data: Any


class SseDecoder:
    """Incremental SSE parser: feed text, get (event, data) for each complete frame."""

    def __init__(self) -> None:
        self._buffer = ""

    def feed(self, text: str) -> list[tuple[str, str]]:
        buf = self._buffer + text
        if "\r" in buf:
            held_cr = buf.endswith("\r")
            if held_cr:
                buf = buf[:-1]
            buf = buf.replace("\r\n", "\n").replace("\r", "\n")
            if held_cr:
                buf += "\r"  # may be the first half of a CRLF split across chunks
        end = buf.rfind("\n\n")
        if end < 0:
            self._buffer = buf
            return []
        complete, self._buffer = buf[:end], buf[end + 2 :]
        frames: list[tuple[str, str]] = []
        for raw in complete.split("\n\n"):
            frame = _parse_frame(raw)
            if frame is not None:
                frames.append(frame)
        return frames

    def flush(self) -> list[tuple[str, str]]:
        """At the end of the stream a held-back CR is a line end; an unterminated last
        frame is incomplete by the spec and is dropped."""
        buf, self._buffer = self._buffer, ""
        if buf.endswith("\r"):
            return self.feed(buf[:-1] + "\n")
        return []


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


async def iter_sse_data(response: httpx.Response) -> AsyncIterator[tuple[str, str]]:
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
) -> AsyncIterator[SseFrame]:
    """Yield each frame's parsed JSON; stop at ``done_marker`` (OpenAI's ``[DONE]``)."""
    async for event, data in iter_sse_data(response):
        if done_marker is not None and data.strip() == done_marker:
            return
        try:
            parsed = json.loads(data)
        except ValueError as exc:
            raise StreamError(
                f"malformed SSE frame from server: {data[:120]!r}", kind="malformed"
            ) from exc
        yield SseFrame(event, parsed)
