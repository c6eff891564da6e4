"""The session's language servers: one per server and workspace root, started on the first
file it serves, kept warm, stopped when the session closes.

Every wait is bounded: an edit waits at most ``wait`` seconds for its diagnostics, and a
server that hangs or dies makes the result say they were unavailable rather than hold
the edit. A server still starting keeps starting in the background for the next edit.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from gemtui.tools.background import BackgroundJobs
from gemtui.tools.lsp.servers import ServerGone, ServerSpec, spec_for

if TYPE_CHECKING:  # pygls and lsprotocol load with the first server, not with the session
    from lsprotocol import types as lsp

    from gemtui.tools.lsp.connection import ServerConnection
    from gemtui.tools.sandbox import SandboxConfig

__all__ = ["LanguageServers", "ServerGone", "Unavailable"]

T = TypeVar("T")


class Unavailable(Exception):
    """No answer within the bound, or the server is gone: said in one line."""


class _Running:
    def __init__(self, connection: ServerConnection, starting: asyncio.Task[None]) -> None:
        self.connection = connection
        self.starting = starting


class LanguageServers:
    """Servers by (name, root); ``on_ready`` is called when one finishes starting."""

    def __init__(
        self,
        specs: list[ServerSpec],
        *,
        sandbox: SandboxConfig | None = None,
        wait: float = 2.0,
        limit: int = 10,
        on_ready: Callable[[], None] | None = None,
    ) -> None:
        self.specs = specs
        self.sandbox = sandbox
        self.wait = wait
        self.limit = limit
        self.on_ready = on_ready
        self._running: dict[tuple[str, Path], _Running] = {}
        self._warming: set[asyncio.Task[None]] = set()
        self.jobs = BackgroundJobs()
        """The servers' process groups: ended at exit even when no close ran."""
        self.waits: list[float] = []
        """Seconds each edit waited for its diagnostics (``make bench`` reads them)."""

    def serves(self, path: Path) -> bool:
        """A server is configured or found for ``path``'s language."""
        return spec_for(self.specs, path) is not None

    def running(self) -> bool:
        """Some server answered ``initialize`` and is still alive."""
        return any(r.connection.ready and not r.connection.dead for r in self._running.values())

    def _connect(self, path: Path, root: Path) -> _Running | None:
        spec = spec_for(self.specs, path)
        if spec is None:
            return None
        key = (spec.name, root)
        found = self._running.get(key)
        if found is None or found.connection.dead:
            from gemtui.tools.lsp.connection import ServerConnection

            connection = ServerConnection(spec, root, self.sandbox, self.jobs)
            starting = asyncio.get_running_loop().create_task(self._start(connection))
            found = self._running[key] = _Running(connection, starting)
        return found

    async def _start(self, connection: ServerConnection) -> None:
        await connection.start()
        if self.on_ready is not None:
            self.on_ready()

    async def _bounded(self, running: _Running, work: Callable[[], Awaitable[T]], t: float) -> T:
        name = running.connection.spec.name
        try:
            async with asyncio.timeout(t):
                await asyncio.shield(running.starting)
                return await work()
        except TimeoutError as exc:
            raise Unavailable(f"{name} did not answer within {t:g}s") from exc
        except ServerGone as exc:
            raise Unavailable(str(exc)) from exc

    def warm(self, path: Path, root: Path, text: str) -> None:
        """Start ``path``'s server and open the file with ``text`` without waiting (a read,
        the usual step before an edit): the edit then finds the server warm and the
        file's diagnostics before it already known."""
        running = self._connect(path, root)
        if running is None:
            return
        connection = running.connection
        lock = connection.locks.setdefault(path.as_uri(), asyncio.Lock())

        async def open_it() -> None:
            with contextlib.suppress(Exception):
                await asyncio.shield(running.starting)
                async with lock:
                    if connection.text_of(path) != text:
                        await connection.sync(path, text)

        task = asyncio.get_running_loop().create_task(open_it())
        self._warming.add(task)
        task.add_done_callback(self._warming.discard)

    # -- diagnostics ---------------------------------------------------------------------

    async def check_edit(
        self, path: Path, root: Path, rel: str, before: str | None, after: str
    ) -> str | None:
        """The note for an edit's result: what it introduced, or why nothing can be said;
        None when no server serves the file."""
        running = self._connect(path, root)
        if running is None:
            return None
        from gemtui.tools.lsp.diagnostics import describe, introduced

        connection = running.connection
        lock = connection.locks.setdefault(path.as_uri(), asyncio.Lock())

        async def compare() -> list[lsp.Diagnostic]:
            async with lock:
                old = connection.current(path) if connection.text_of(path) == before else None
                if old is None:
                    old = [] if before is None else await connection.sync(path, before)
                started = time.perf_counter()
                new = await connection.sync(path, after)
                self.waits.append(time.perf_counter() - started)
                return introduced(old, new)

        try:
            new = await self._bounded(running, compare, self.wait)
        except Unavailable as exc:
            return f"Diagnostics unavailable: {exc}."
        return describe(connection.spec.name, rel, new, self.limit)

    async def current(self, path: Path, root: Path, text: str) -> list[lsp.Diagnostic]:
        """``path``'s diagnostics with ``text`` as its content (``Unavailable`` past the
        bound; ``LookupError`` when no server serves it)."""
        running = self._require(path, root)
        connection = running.connection
        lock = connection.locks.setdefault(path.as_uri(), asyncio.Lock())

        async def fetch() -> list[lsp.Diagnostic]:
            async with lock:
                known = connection.current(path)
                if connection.text_of(path) == text and known is not None:
                    return known
                return await connection.sync(path, text)

        return await self._bounded(running, fetch, self.wait)

    # -- navigation ----------------------------------------------------------------------

    async def ask(
        self,
        path: Path,
        root: Path,
        text: str,
        request: Callable[[ServerConnection], Awaitable[T]],
    ) -> T:
        """``request`` on ``path``'s server once it holds ``text`` for the file."""
        running = self._require(path, root)
        connection = running.connection

        async def send() -> T:
            if connection.text_of(path) != text:
                connection.send(path, text)  # the answer needs the text, not a report
            return await request(connection)

        return await self._bounded(running, send, self.wait * 5)

    def _require(self, path: Path, root: Path) -> _Running:
        running = self._connect(path, root)
        if running is None:
            raise LookupError(f"No language server is set up for {path.suffix or path.name}")
        return running

    # -- end -----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Shut every server down (killed past a short grace)."""
        running, self._running = list(self._running.values()), {}
        for task in [*self._warming, *(r.starting for r in running)]:
            task.cancel()
        await asyncio.gather(*(r.connection.stop() for r in running), return_exceptions=True)
        self.jobs.terminate()

    def terminate(self) -> None:
        """Kill every server's process group now (no loop needed)."""
        for r in self._running.values():
            r.connection.terminate()
        self.jobs.terminate()
