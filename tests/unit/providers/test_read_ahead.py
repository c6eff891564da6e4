"""read_ahead: what arrived goes to the consumer at once, in order, errors last."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing

import pytest

from gemtui.providers.read_ahead import read_ahead


async def test_items_keep_their_order_and_pile_up_while_the_consumer_is_busy() -> None:
    consumer_busy = asyncio.Event()
    produced_more = asyncio.Event()

    async def source() -> AsyncIterator[int]:
        yield 0
        await consumer_busy.wait()
        for i in range(1, 10):
            yield i
            yield i + 100
        produced_more.set()

    batches: list[list[int]] = []
    async with aclosing(read_ahead(source())) as stream:
        async for batch in stream:
            batches.append(batch)
            if len(batches) == 1:
                consumer_busy.set()
                await produced_more.wait()  # the consumer is slow: the reader goes on
    assert batches[0] == [0]
    assert [x for b in batches for x in b] == [0, *[y for i in range(1, 10) for y in (i, i + 100)]]
    assert len(batches) == 2, "everything that arrived while the consumer was away is one batch"


async def test_the_first_item_is_handed_over_before_the_source_is_asked_again() -> None:
    handed_over = asyncio.Event()

    async def source() -> AsyncIterator[str]:
        yield "first"
        await handed_over.wait()  # would never end if read_ahead held the first one back
        yield "second"

    got: list[str] = []
    async with aclosing(read_ahead(source())) as stream:
        async for batch in stream:
            got.extend(batch)
            handed_over.set()
    assert got == ["first", "second"]


async def test_an_error_comes_after_the_items_before_it() -> None:
    async def source() -> AsyncIterator[int]:
        yield 1
        yield 2
        yield 3
        raise ValueError("broken stream")

    got: list[int] = []

    async def read() -> None:
        async for batch in read_ahead(source()):
            got.extend(batch)

    with pytest.raises(ValueError, match="broken stream"):
        await read()
    assert got == [1, 2, 3]


async def test_closing_the_consumer_stops_the_reader_and_closes_the_source() -> None:
    closed = asyncio.Event()
    never = asyncio.Event()

    async def source() -> AsyncIterator[int]:
        try:
            yield 1
            await never.wait()
            yield 2
        finally:
            closed.set()

    async with aclosing(read_ahead(source())) as stream:
        async for batch in stream:
            assert batch == [1]
            break
    assert closed.is_set()


async def test_a_slow_consumer_holds_the_reader_back() -> None:
    produced = 0

    async def endless() -> AsyncIterator[int]:
        nonlocal produced
        while True:
            produced += 1
            yield produced
            await asyncio.sleep(0)  # a network read: the loop runs others in between

    async with aclosing(read_ahead(endless(), max_waiting=4)) as stream:
        async for _ in stream:
            for _ in range(50):  # the consumer is busy for many turns of the loop
                await asyncio.sleep(0)
            break
    assert produced <= 6, produced


async def test_what_waits_is_bounded_by_its_weight_and_a_heavy_item_still_passes() -> None:
    produced: list[int] = []

    async def heavy() -> AsyncIterator[bytes]:
        for i in range(100):
            produced.append(i)
            yield b"x" * 600  # each item alone is past half the limit
            await asyncio.sleep(0)

    got: list[bytes] = []
    async with aclosing(read_ahead(heavy(), max_waiting=1000, weigh=len)) as stream:
        async for batch in stream:
            got.extend(batch)
            if len(got) == 1:
                for _ in range(50):  # a busy consumer: the reader may take two items only
                    await asyncio.sleep(0)
                assert len(produced) <= 3, produced
    assert len(got) == 100


async def test_a_source_that_fails_to_close_fails_the_stream() -> None:
    class Source:
        def __init__(self) -> None:
            self.items = [1, 2]

        def __aiter__(self) -> Source:
            return self

        async def __anext__(self) -> int:
            await asyncio.sleep(0)
            if not self.items:
                raise StopAsyncIteration
            return self.items.pop(0)

        async def aclose(self) -> None:
            raise OSError("the connection could not be released")

    got: list[int] = []

    async def read() -> None:
        async with aclosing(read_ahead(Source())) as stream:
            async for batch in stream:
                got.extend(batch)

    with pytest.raises(OSError, match="could not be released"):
        await read()
    assert got == [1, 2]


async def test_a_cancel_that_comes_while_the_stream_closes_is_not_lost() -> None:
    """Esc pressed while the stream is being closed: the consumer must stop there."""
    closing = asyncio.Event()
    release = asyncio.Event()

    async def source() -> AsyncIterator[int]:
        try:
            yield 1
            await asyncio.Event().wait()
        finally:
            closing.set()
            await release.wait()  # a slow close (a connection being released)

    async def consumer() -> str:
        async with aclosing(read_ahead(source())) as stream:
            async for _ in stream:
                break  # stop early: closes the stream
        return "ran on after being cancelled"

    task = asyncio.create_task(consumer())
    await closing.wait()
    task.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
