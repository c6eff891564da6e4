"""Join the text pieces that arrived together, so the layers above pay per read.

Why: an OpenAI-compatible or Anthropic stream sends a few tokens a frame; the parts of
all the frames one network read brought are handed on as one response, and within it
each run of plain text pieces (answer text, or thought text, nothing else set) becomes
one part. Joined text is the same text: the chat consolidates parts in the end anyway,
and the views only ever append. A part with anything more (a signature, a call) is
never joined, so it keeps its place and its content.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing

import httpx

from gemtui.providers.sse import read_frames_ahead
from gemtui.wire import Part

__all__ = ["FrameFeed", "join_text_parts", "stream_parts"]

FrameFeed = Callable[[str, bytes, list[Part]], bool]
"""Takes one frame (event name, data), adds its parts to the list; True when the
stream says it is over."""

_PLAIN = frozenset({"text", "thought"})


def join_text_parts(parts: list[Part]) -> list[Part]:
    """``parts`` with each run of adjacent plain text parts of one kind made one part."""
    if len(parts) < 2:
        return parts
    out: list[Part] = []
    run: list[str] = []
    kind: bool | None = None
    for part in parts:
        plain = part.text is not None and part.model_fields_set <= _PLAIN
        if plain and run and bool(part.thought) == kind:
            run.append(part.text or "")
            continue
        _close(out, run, kind)
        run, kind = [], None
        if plain:
            run, kind = [part.text or ""], bool(part.thought)
        else:
            out.append(part)
    _close(out, run, kind)
    return out


def _close(out: list[Part], run: list[str], thought: bool | None) -> None:
    if run:
        text = "".join(run)
        out.append(Part(text=text, thought=True) if thought else Part(text=text))


async def stream_parts(
    response: httpx.Response, feed: FrameFeed
) -> AsyncGenerator[list[Part], None]:
    """The parts of all the frames each read brought, text runs joined.

    The first frame with parts goes on alone, however many came with it. An error
    ``feed`` raises comes after the parts of the frames before it; the stream's own end
    (``feed`` returning True) stops the reading.
    """
    first = True
    async with aclosing(read_frames_ahead(response)) as batches:
        async for batch in batches:
            parts: list[Part] = []
            ended = False
            try:
                for event, data in batch:
                    if feed(event, data, parts):
                        ended = True
                        break
                    if first and parts:  # the answer's first piece waits for nothing
                        first = False
                        yield parts
                        parts = []
            except Exception:
                if parts:
                    yield join_text_parts(parts)
                raise
            if parts:
                yield join_text_parts(parts)
            if ended:
                return
