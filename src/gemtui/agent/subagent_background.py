"""Subagents started in the background: the parent's turn goes on, the report comes later.

``delegate(task, background=true)`` starts the child executor as its own task and
answers the call at once with a "started" result. When the child ends, its report (or
why it stopped) waits in the session's inbox; the agent loop puts it into the next
request as a message, and a conversation about to end its prompt waits for the
background agents it started first, so no report is ever dropped. The fleet (and any
view) watches runs start and end with ``watch``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from msgspec import Struct, field

from gemtui.bus import AgentFinished

__all__ = ["BackgroundAgents", "BackgroundRun"]


class BackgroundRun(Struct):
    """One subagent running in the background, started by the call ``call_id``."""

    call_id: str
    agent: str
    task: str
    model: str | None
    cancel_event: asyncio.Event
    future: asyncio.Future[AgentFinished]
    finished: AgentFinished | None = None
    report: str = ""
    """What the parent is told when it ends (its report, or why it stopped)."""

    def cancel(self) -> None:
        """End its turn and its calls now (the fleet's stop, the session's close)."""
        self.cancel_event.set()

    async def wait(self) -> None:
        await asyncio.wait({self.future})

    @property
    def running(self) -> bool:
        return self.finished is None


class BackgroundAgents(Struct):
    """The background runs of one session, and the inbox of their reports."""

    runs: dict[str, BackgroundRun] = field(default_factory=dict)
    _inbox: list[str] = field(default_factory=list)
    _watchers: list[Callable[[BackgroundRun], None]] = field(default_factory=list)
    _changed: asyncio.Event | None = None

    def watch(self, fn: Callable[[BackgroundRun], None]) -> Callable[[], None]:
        """Call ``fn`` when a run starts and when it ends; returns the unwatch function."""
        self._watchers.append(fn)
        return lambda: self._watchers.remove(fn) if fn in self._watchers else None

    def start(
        self,
        call_id: str,
        agent: str,
        task: str,
        model: str | None,
        run: Callable[[asyncio.Event], Awaitable[AgentFinished]],
        report: Callable[[AgentFinished], str],
    ) -> BackgroundRun:
        """Run ``run(cancel)`` in its own task; ``report`` words its end for the parent."""
        cancel = asyncio.Event()
        future = asyncio.ensure_future(run(cancel))
        item = BackgroundRun(call_id, agent, task, model, cancel, future)
        self.runs[call_id] = item
        future.add_done_callback(lambda f: self._ended(item, f, report))
        self._notify(item)
        return item

    def _ended(
        self,
        item: BackgroundRun,
        future: asyncio.Future[AgentFinished],
        report: Callable[[AgentFinished], str],
    ) -> None:
        if future.cancelled():
            from gemtui.bus import TerminateReason

            done = AgentFinished(reason=TerminateReason.ABORTED, text="", error="cancelled")
        elif future.exception() is not None:
            from gemtui.bus import TerminateReason

            error = f"{type(future.exception()).__name__}: {future.exception()}"
            done = AgentFinished(reason=TerminateReason.ERROR, text="", error=error)
        else:
            done = future.result()
        item.finished = done
        item.report = (
            f"[The background agent {item.agent} (call {item.call_id}) has finished.]\n"
            + report(done)
        )
        self._inbox.append(item.report)
        if self._changed is not None:
            self._changed.set()
        self._notify(item)

    def _notify(self, item: BackgroundRun) -> None:
        for fn in list(self._watchers):
            with contextlib.suppress(Exception):  # a broken view never breaks the agent
                fn(item)

    # -- the agent loop's side ----------------------------------------------------------
    def take(self) -> list[str]:
        """The reports that arrived and were not delivered yet (each delivered once)."""
        out, self._inbox = self._inbox, []
        return out

    def outstanding(self) -> bool:
        """Whether a run is still going (the prompt waits for it before ending)."""
        return any(r.running for r in self.runs.values())

    async def next_report(self, cancel: asyncio.Event) -> bool:
        """Wait until a report is there (True) or ``cancel`` is set (False)."""
        while not self._inbox:
            if cancel.is_set() or not self.outstanding():
                return bool(self._inbox)
            self._changed = changed = asyncio.Event()
            waiter = asyncio.ensure_future(cancel.wait())
            arrived = asyncio.ensure_future(changed.wait())
            try:
                await asyncio.wait({waiter, arrived}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
                arrived.cancel()
                self._changed = None
        return True

    def stop_all(self) -> None:
        """Cancel every run still going (the session is closing)."""
        for run in self.runs.values():
            if run.running:
                run.cancel()

    async def wait_all(self) -> None:
        futures = {r.future for r in self.runs.values() if not r.future.done()}
        if futures:
            await asyncio.wait(futures)
