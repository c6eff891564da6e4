"""Reading server-sent events the way the wire demands.

Lines are split on CR, LF and CRLF only (httpx-sse's decoder does exactly that, unlike
``str.splitlines``), so a JSON string holding U+2028 or U+0085 survives. A frame whose
data is not valid JSON raises ``StreamError(kind="malformed")``: silently skipping it
would leave a hole in the answer, while the chat's stream retry regenerates the whole
answer and tells the views to discard the partial text.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import EventSource

from gemtui.errors import StreamError

__all__ = ["SseFrame", "iter_sse_json"]


@dataclass(frozen=True, slots=True)
class SseFrame:
    event: str
    data: Any


async def iter_sse_json(response: httpx.Response, *, done_marker: str | None = None) -> AsyncIterator[SseFrame]:
    """Yield each SSE frame's parsed JSON; stop at ``done_marker`` (OpenAI's ``[DONE]``)."""
    source = EventSource(response)
    async for sse in source.aiter_sse():
        data = sse.data
        if not data.strip():
            continue
        if done_marker is not None and data.strip() == done_marker:
            return
        try:
            parsed = json.loads(data)
        except ValueError as exc:
            raise StreamError(f"malformed SSE frame from server: {data[:120]!r}", kind="malformed") from exc
        yield SseFrame(sse.event, parsed)
