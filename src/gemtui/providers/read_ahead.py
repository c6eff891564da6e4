"""Hand a stream's consumer everything that has already arrived, in one go.

Why: a model's answer comes as thousands of small frames, and each one that travels on
its own pays for every layer above the provider (the chat, the turn, the executor, the
bus, the views). A reader task pulls frames from the source while the consumer works;
whenever the consumer comes back, it takes all the frames waiting as one batch, so the
layers above run once per network read instead of once per frame. Nothing is held
back to make a batch: the consumer never waits while a frame is waiting, and the
stream's first frame is handed over before the reader looks for a second.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import TypeVar

__all__ = ["MAX_WAITING", "read_ahead"]

T = TypeVar("T")

MAX_WAITING = 512
"""Items the reader may get ahead of the consumer by (unless told to weigh them
otherwise): a slow consumer slows the read (and so the server), rather than the answer
piling up in memory."""


async def read_ahead(
    source: AsyncIterator[T],
    *,
    max_waiting: int = MAX_WAITING,
    weigh: Callable[[T], int] | None = None,
) -> AsyncGenerator[list[T], None]:
    """Yield lists of the items ``source`` has produced since the last yield, in order.

    The reader does as little as it can per item (a network read's bytes, say): it
    keeps it, and weighs it. It stops while what waits weighs ``max_waiting`` or more
    (by ``weigh``, one an item unless told otherwise); one item is always taken, so a
    heavy one cannot stop the stream.

    An error of the source is raised after the items that came before it; closing
    this generator cancels the reader (and so closes ``source``) before it returns.
    """
    waiting: list[T] = []
    weight = 0
    """What ``waiting`` weighs."""
    ready = asyncio.Event()
    """Items, or the end of the source, are waiting for the consumer."""
    room = asyncio.Event()
    """The consumer took what was waiting: the reader may go on."""
    ended = False
    failure: BaseException | None = None

    async def pump() -> None:
        nonlocal ended, failure, weight
        first = True
        try:
            async for item in source:
                waiting.append(item)
                weight += 1 if weigh is None else weigh(item)
                ready.set()
                if first:  # the first token goes out now, not after the rest of the read
                    first = False
                    await asyncio.sleep(0)
                while weight >= max_waiting:
                    room.clear()
                    await room.wait()
        except Exception as exc:  # handed to the consumer, after what came before it
            failure = exc
        except BaseException as exc:  # cancelled by someone else: the stream did not end
            failure = exc
            raise
        finally:
            close = getattr(source, "aclose", None)  # even when cancelled between items
            try:
                if close is not None:
                    await close()
            except Exception as exc:  # a source that fails to close: the stream failed
                failure = failure or exc
            finally:
                ended = True
                ready.set()

    reader = asyncio.create_task(pump())
    try:
        while True:
            while not (waiting or ended):  # the state decides, not the event alone
                ready.clear()
                await ready.wait()
            if waiting:
                batch = waiting
                waiting = []
                weight = 0
                room.set()
                yield batch
                continue
            if failure is not None:
                raise failure
            return
    finally:
        if not reader.done():
            reader.cancel()
            try:
                await reader
            except asyncio.CancelledError:  # the reader's, as asked; or ours: pass ours on
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise
