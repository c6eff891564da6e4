"""Blocking file work off the event loop, in threads that never hold up an exit.

``asyncio.to_thread`` runs work in the loop's default executor, and both ``asyncio.run``
and the interpreter join those threads on the way out: a long read, search or diff that
is still running would keep gemtui alive after Ctrl-C. Here each job gets its own daemon
thread and a ``CancelToken``; cancelling the awaiting task sets the token (the job checks
it between files and lines and stops) and returns at once without waiting for the thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["CancelToken", "JobCancelled", "run_off_loop"]

T = TypeVar("T")


class JobCancelled(Exception):
    """Raised inside a job by ``CancelToken.check`` once its caller has gone away."""


class CancelToken:
    """Set when the task awaiting a job is cancelled; the job polls it."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise JobCancelled


def _settle(fut: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)


async def run_off_loop(job: Callable[[CancelToken], T], *, name: str = "gemtui-file-job") -> T:
    """Run ``job(token)`` in a daemon thread and await its result.

    On cancellation the token is set and CancelledError propagates immediately; the
    thread finishes (or notices the token) on its own and cannot delay process exit.
    """
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()
    token = CancelToken()

    def worker() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = job(token)
        except BaseException as exc:  # handed to the awaiting task
            error = exc
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting
            loop.call_soon_threadsafe(_settle, fut, result, error)

    threading.Thread(target=worker, name=name, daemon=True).start()
    try:
        return await fut
    except asyncio.CancelledError:
        token.cancel()
        raise
