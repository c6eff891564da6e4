"""A generator and the ones it wraps (retry → text tools → the wire adapter).

A capability lives on one link of the chain (the wire adapter opens connections, the
text-tools wrapper decides the tool form), so callers walk the chain to find it.
"""

from __future__ import annotations

from collections.abc import Iterator

from gemtui.providers.base import ContentGenerator

__all__ = ["generator_chain", "preconnect_chain"]


def generator_chain(generator: ContentGenerator) -> Iterator[object]:
    """The generator and the ones it wraps, outermost first."""
    seen: object | None = generator
    while seen is not None:
        yield seen
        seen = getattr(seen, "inner", None)


async def preconnect_chain(generator: ContentGenerator) -> None:
    """Open the connection to the server behind ``generator`` before the first prompt
    needs it (the first link that can; a chain with none does nothing)."""
    for gen in generator_chain(generator):
        connect = getattr(gen, "preconnect", None)
        if connect is not None:
            await connect()
            return
