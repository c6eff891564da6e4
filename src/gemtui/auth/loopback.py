"""The loopback listener on 127.0.0.1 that receives Google's redirect to ``/oauth2callback``.

Why: only this machine may deliver the code; the listener answers one redirect, shows
the browser a plain page, and gives up after the flow's timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno

from gemtui.auth.callback import code_from_redirect
from gemtui.auth.pkce import CALLBACK_PATH
from gemtui.errors import FatalAuthenticationError

DEFAULT_PORT = 8085
FLOW_TIMEOUT = 300.0


def _page(status: str, text: str) -> bytes:
    body = f"<!doctype html><title>gemtui</title><p>{text}</p>".encode()
    head = f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
    head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode() + body


class Loopback:
    """Listens on 127.0.0.1 (port 8085, or a free one when taken) for one redirect."""

    def __init__(self, state: str, port: int = DEFAULT_PORT) -> None:
        self.state = state
        self._want = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[str] | None = None

    @property
    def redirect_uri(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}{CALLBACK_PATH}"

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", self._want)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def code(self, limit: float = FLOW_TIMEOUT) -> str:
        """The code of the first redirect; its refusal or a timeout as exit 41."""
        assert self._result is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), limit)
        except TimeoutError:
            raise FatalAuthenticationError(
                f"Sign-in timed out after {limit:.0f} s with no redirect; run it again."
            ) from None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10)
            parts = line.decode("latin-1").split()
            target = parts[1] if len(parts) >= 3 and parts[0] == "GET" else ""
            if target.startswith("/favicon"):  # the browser asks for an icon: not a redirect
                writer.write(_page("404 Not Found", "Not found."))
                await writer.drain()
                return
            try:
                code = code_from_redirect(target, self.state)
            except FatalAuthenticationError as exc:
                writer.write(_page("400 Bad Request", "Sign-in failed; see the terminal."))
                if self._result is not None and not self._result.done():
                    self._result.set_exception(exc)
            else:
                writer.write(_page("200 OK", "Signed in to gemtui. You may close this tab."))
                if self._result is not None and not self._result.done():
                    self._result.set_result(code)
            await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()
