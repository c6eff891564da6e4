"""Await one thing unless the prompt's cancel comes first.

Why: a model call hidden behind retries (a 5 s backoff, a stalled server) must never hold
Esc, Ctrl-C or the time limit hostage. Every call the agent makes outside a ``Turn`` (the
router's classifier, compression, the next-speaker check) goes through here, so a cancel
ends it at once instead of after its retries.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

from msgspec import Struct

__all__ = ["Finished", "until_cancelled"]

T = TypeVar("T")


class Finished(Struct, Generic[T], frozen=True):
    """What the awaited call returned (it ran to the end)."""

    value: T


async def until_cancelled(
    coro: Coroutine[Any, Any, T], cancel: asyncio.Event
) -> Finished[T] | None:
    """``coro``'s result, or None when ``cancel`` was set first (``coro`` is then
    cancelled and awaited, so nothing of it runs on). Its exceptions propagate."""
    task = asyncio.ensure_future(coro)
    if cancel.is_set():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return None
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        waiter.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return None
    return Finished(task.result())
