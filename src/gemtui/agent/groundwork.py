"""The first prompt's groundwork: the model's window and the environment, gathered early.

A session starts it while the person types, so Enter does not wait: the model's window
(a local server is asked; it decides the compact tool descriptions) and the environment
(date, system, the listing, ``git status``). A request needs the window; at the screen it
never waits for the environment, which joins the first request after it is gathered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from gemtui.agent.environment_context import COMPACT_LISTING
from gemtui.tools.offload import run_off_loop

__all__ = ["CONNECT_WAIT", "Groundwork"]

CONNECT_WAIT = 5.0
"""Seconds a first request waits for the connection being opened for it, at most (a
server that takes longer to answer is then asked on a connection of the request's own)."""


class Groundwork:
    """The groundwork of one session, and what it found so far."""

    def __init__(
        self,
        fit: Callable[[], Awaitable[bool]],
        gather: Callable[[int], str],
        *,
        fitted: Callable[[bool], None],
        gathered: Callable[[], None],
        interactive: bool,
        connect: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """``fit`` asks whether the model needs the compact prompt (and learns its window);
        ``gather`` reads the environment listing at most that many entries; ``fitted`` and
        ``gathered`` tell the session, which rebuilds its system instruction; ``connect``
        opens the model server's connection beside them (a person types meanwhile)."""
        self._fit = fit
        self._gather = gather
        self._on_fitted = fitted
        self._on_gathered = gathered
        self._interactive = interactive
        self._connect = connect
        self._connecting: asyncio.Task[None] | None = None
        self.compact: bool | None = None
        """Whether tools get the compact description (and the compact core prompt);
        None until the model's window is known."""
        self.environment = ""
        """Date, system, listing and git status: gathered once, from the session's start."""
        self._fitted = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def needed(self) -> bool:
        """A request would wait: the window is unknown, (headless) the environment, or the
        connection being opened (a request that left beside it would open a second one)."""
        unknown = self.compact is None or not (self.environment or self._interactive)
        return unknown or self._pending_connection is not None

    @property
    def _pending_connection(self) -> asyncio.Task[None] | None:
        """The early connection while it is being opened (a request waits for it, at most
        ``CONNECT_WAIT``: its handshake is the request's too); None once open or failed."""
        connecting = self._connecting
        return connecting if connecting is not None and not connecting.done() else None

    def start(self) -> asyncio.Task[None]:
        """Start it now (on the loop the session runs on); await the task to wait for it.
        One that failed or was cancelled starts again; one that succeeded is kept."""
        task = self._task
        if task is None or (task.done() and (task.cancelled() or task.exception())):
            task = asyncio.get_running_loop().create_task(self._run(), name="gemtui-prepare")
            self._task = task
        return task

    def redo(self) -> None:
        """The window found belongs to another model or provider: find it again (and
        connect to it)."""
        self.compact = None
        self._fitted.clear()
        self.stop()

    async def ready(self) -> None:
        """Wait for what a request needs: the window, and the environment too unless a
        person waits at the screen (``git status`` in a large repository may take seconds)."""
        task = self.start()
        if self._interactive:
            fitted = asyncio.ensure_future(self._fitted.wait())
            try:  # the groundwork goes on either way (for the next request)
                await asyncio.wait({task, fitted}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                fitted.cancel()
            if self._fitted.is_set():
                if (connecting := self._pending_connection) is not None:
                    await asyncio.wait({connecting}, timeout=CONNECT_WAIT)
                return
        await asyncio.shield(task)  # headless waits for all; a failure is raised here

    async def _run(self) -> None:
        if self._connect is not None and self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect())
        if self.compact is None:
            self.compact = await self._fit()
            self._on_fitted(self.compact)
        self._fitted.set()
        if not self.environment:  # a groundwork cut short gathers it again
            limit = COMPACT_LISTING if self.compact else 50
            self.environment = await run_off_loop(  # never joined at exit
                lambda _: self._gather(limit), name="gemtui-environment"
            )
            self._on_gathered()
        if self._connecting is not None:  # done once the connection is open (or failed)
            await asyncio.shield(self._connecting)

    def stop(self) -> None:
        """Stop it if still running (the session is being replaced or closed)."""
        task, self._task = self._task, None
        connecting, self._connecting = self._connecting, None
        if connecting is not None:
            connecting.cancel()
        if task is not None and not task.done():
            task.cancel()
        elif task is not None and not task.cancelled():
            task.exception()  # a failure nobody waited for is not reported at exit
