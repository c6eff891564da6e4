"""One running language server, spoken to through pygls's client with lsprotocol's types.

The server is a child process in its own process group (bubblewrap around it under
``-s``), its stderr discarded. Documents are synced whole (``didOpen`` then full-text
``didChange``); every ``publishDiagnostics`` is kept per document with a count, so a
caller can wait for the first report after the change it sent. When the process dies,
every waiter wakes and every request fails: nothing hangs on a dead server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient

from gemtui.tools.lsp.servers import ServerGone, ServerSpec, language_id

if TYPE_CHECKING:
    from gemtui.tools.background import BackgroundJobs
    from gemtui.tools.sandbox import SandboxConfig, SandboxedCommand

__all__ = ["ServerConnection", "ServerGone"]

log = logging.getLogger(__name__)


class _Client(LanguageClient):
    """pygls's client, starting its server with stderr discarded in a new process group."""

    def __init__(self, owner: ServerConnection) -> None:
        super().__init__("gemtui", "1")
        self.owner = owner

    async def launch(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        """Start ``argv`` and read its messages (pygls's ``start_io`` keeps stderr piped,
        which a chatty server would fill and block on)."""
        server = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        assert server.stdin is not None
        assert server.stdout is not None
        self.protocol.set_writer(server.stdin)
        self._server = server
        reading = run_async(
            stop_event=self._stop_event,
            reader=server.stdout,
            protocol=self.protocol,
            logger=log,
        )
        self._async_tasks.extend(
            [asyncio.create_task(reading), asyncio.create_task(self._server_exit())]  # type: ignore[no-untyped-call]
        )

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        self.owner.gone()


class ServerConnection:
    """A started (or starting) server for one workspace root."""

    def __init__(
        self,
        spec: ServerSpec,
        root: Path,
        sandbox: SandboxConfig | None,
        jobs: BackgroundJobs | None = None,
    ) -> None:
        self.spec = spec
        self.jobs = jobs
        """Owns the server's process group, so gemtui's exit ends it whatever the path."""
        self.root = root
        self.sandbox = sandbox
        self.client = _Client(self)
        self.dead = False
        self.ready = False
        """``initialize`` was answered: the server is warm."""
        self._texts: dict[str, tuple[int, str]] = {}
        """Per document URI: the version and text last sent."""
        self._published: dict[str, tuple[int, int | None, list[lsp.Diagnostic]]] = {}
        """Per document URI: reports so far, the version the last one named, its list."""
        self._pulse = asyncio.Event()
        self._boxed: SandboxedCommand | None = None
        self.locks: dict[str, asyncio.Lock] = {}
        """One document's sync-and-wait at a time (two edits of one file in a row)."""

        def diagnosed(params: lsp.PublishDiagnosticsParams) -> None:
            self._diagnosed(params)  # pygls marks the handler: a plain function, not a method

        self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(diagnosed)

    # -- lifecycle -----------------------------------------------------------------------

    async def start(self) -> None:
        """Run the server and exchange ``initialize``; raises ``ServerGone`` if it dies."""
        from gemtui.tools.sandbox import require_bwrap, scrubbed_env, wrap_command

        argv = list(self.spec.argv)
        if self.sandbox is not None:
            self._boxed = wrap_command(argv, self.sandbox, require_bwrap())
            argv = self._boxed.argv
        env = scrubbed_env()  # a language server needs no API key or agent socket
        try:
            await self.client.launch(argv, self.root, env)
        except OSError as exc:
            self.gone()
            raise ServerGone(f"{self.spec.name} could not start: {exc.strerror or exc}") from exc
        server = self.client._server
        if self.jobs is not None and server is not None:
            self.jobs.adopt(server.pid)  # its own group: start_new_session
        uri = self.root.as_uri()
        params = lsp.InitializeParams(
            # a server watches this pid and leaves when it is gone; inside bubblewrap's
            # own pid namespace it would never see it, and leave at its first look
            process_id=os.getpid() if self._boxed is None else None,
            root_uri=uri,
            workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.root.name)],
            capabilities=lsp.ClientCapabilities(
                text_document=lsp.TextDocumentClientCapabilities(
                    publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
                        version_support=True
                    ),
                    document_symbol=lsp.DocumentSymbolClientCapabilities(
                        hierarchical_document_symbol_support=True
                    ),
                )
            ),
            initialization_options=self.spec.init_options or None,
        )
        await self._answer(self.client.initialize_async(params))
        self.client.initialized(lsp.InitializedParams())
        self.ready = True

    def gone(self) -> None:
        """The process exited: wake every waiter, refuse what comes next."""
        self.dead = True
        self._wake()
        if self._boxed is not None:
            self._boxed.release()

    async def stop(self, grace: float = 1.0) -> None:
        """Ask the server to shut down; end its process group if it does not in ``grace``."""
        server = self.client._server
        if server is not None and server.returncode is None and self.ready and not self.dead:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.shutdown_async(None), grace)
                self.client.exit(None)
                await asyncio.wait_for(server.wait(), grace)
        self.terminate()
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait(), grace)
        self.client._stop_event.set()
        for task in self.client._async_tasks:
            task.cancel()

    def terminate(self) -> None:
        """Kill the server's process group at once (no loop needed)."""
        server = self.client._server
        if server is not None and server.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(server.pid, signal.SIGKILL)

    # -- documents -----------------------------------------------------------------------

    def text_of(self, path: Path) -> str | None:
        """The text last sent for ``path`` (None: not open)."""
        sent = self._texts.get(path.as_uri())
        return None if sent is None else sent[1]

    def current(self, path: Path) -> list[lsp.Diagnostic] | None:
        """The last diagnostics reported for ``path`` (None: none reported yet)."""
        seen = self._published.get(path.as_uri())
        return None if seen is None else seen[2]

    async def sync(self, path: Path, text: str) -> list[lsp.Diagnostic]:
        """Send ``text`` as ``path``'s content; the server's next report for it."""
        uri, since, version = self.send(path, text)
        while True:
            count, named, diagnostics = self._published.get(uri, (0, None, []))
            if count > since and (named is None or named >= version):
                return diagnostics
            if self.dead:
                raise ServerGone(f"{self.spec.name} exited")
            pulse = self._pulse
            await pulse.wait()

    def send(self, path: Path, text: str) -> tuple[str, int, int]:
        """Send ``text`` as ``path``'s content: its URI, the reports so far, its version."""
        if self.dead:
            raise ServerGone(f"{self.spec.name} exited")
        uri = path.as_uri()
        since = self._published.get(uri, (0, None, []))[0]
        sent = self._texts.get(uri)
        version = 1 if sent is None else sent[0] + 1
        self._texts[uri] = (version, text)
        if sent is None:
            item = lsp.TextDocumentItem(uri, language_id(path), version, text)
            self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
        else:
            self.client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(version, uri),
                    [lsp.TextDocumentContentChangeWholeDocument(text)],
                )
            )
        return uri, since, version

    def _diagnosed(self, params: lsp.PublishDiagnosticsParams) -> None:
        count = self._published.get(params.uri, (0, None, []))[0]
        self._published[params.uri] = (count + 1, params.version, list(params.diagnostics))
        self._wake()

    def _wake(self) -> None:
        pulse, self._pulse = self._pulse, asyncio.Event()
        pulse.set()

    # -- requests ------------------------------------------------------------------------

    async def _answer(self, request: Any) -> Any:
        """A request's answer, or ``ServerGone`` when the server dies first."""
        if self.dead:
            request.close()  # the coroutine is never sent
            raise ServerGone(f"{self.spec.name} exited")
        try:
            return await request
        except RuntimeError as exc:  # pygls fails pending requests when the process exits
            if self.dead or "exited" in str(exc):
                raise ServerGone(f"{self.spec.name} exited") from exc
            raise

    async def definition(self, path: Path, line: int, column: int) -> Any:
        """Where the symbol at (0-based) ``line``, ``column`` is defined."""
        params = lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(path.as_uri()),
            position=lsp.Position(line, column),
        )
        return await self._answer(self.client.text_document_definition_async(params))

    async def references(self, path: Path, line: int, column: int) -> Any:
        """Every reference to the symbol at (0-based) ``line``, ``column``."""
        params = lsp.ReferenceParams(
            context=lsp.ReferenceContext(include_declaration=True),
            text_document=lsp.TextDocumentIdentifier(path.as_uri()),
            position=lsp.Position(line, column),
        )
        return await self._answer(self.client.text_document_references_async(params))

    async def symbols(self, path: Path) -> Any:
        """The symbols ``path`` defines (a tree or a flat list, as the server answers)."""
        params = lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(path.as_uri()))
        return await self._answer(self.client.text_document_document_symbol_async(params))
