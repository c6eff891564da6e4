"""Shell commands in the editor's terminals (``terminal/*``) as the shell tool's
``TerminalAccess``.

The command runs as ``bash -c`` in the folder the tool already checked; the call shows
the terminal (``tool_call_update`` with a terminal block) while it runs. A timeout or a
cancelled turn kills it, and every terminal is released when the command is done.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path

from acp import RequestError
from acp.interfaces import Client

from gemtui.tools.terminal_access import TerminalRun
from gemtui.tools.tool_error import ToolError

__all__ = ["ClientTerminals"]


class ClientTerminals:
    """Runs one session's shell commands through the client."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        on_terminal: Callable[[str, str], Awaitable[None]],
    ) -> None:
        self._client = client
        self._session_id = session_id
        self._on_terminal = on_terminal
        """Called with (call id, terminal id) once the terminal exists."""

    async def run(
        self, command: str, cwd: Path, *, seconds: float, output_limit: int, call_id: str | None
    ) -> TerminalRun:
        client, sid = self._client, self._session_id
        try:
            created = await client.create_terminal(
                session_id=sid,
                command="bash",
                args=["-c", command],
                cwd=str(cwd),
                output_byte_limit=output_limit,
            )
        except RequestError as exc:
            raise ToolError(f"The editor could not start the command: {exc}") from exc
        tid = created.terminal_id
        try:
            if call_id is not None:
                await self._on_terminal(call_id, tid)
            timed_out = False
            code: int | None = None
            sig: str | None = None
            try:
                done = await asyncio.wait_for(
                    client.wait_for_terminal_exit(session_id=sid, terminal_id=tid), seconds
                )
                code, sig = done.exit_code, done.signal
            except TimeoutError:
                timed_out = True
                await client.kill_terminal(session_id=sid, terminal_id=tid)
            out = await client.terminal_output(session_id=sid, terminal_id=tid)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(client.kill_terminal(session_id=sid, terminal_id=tid))
            raise
        except RequestError as exc:
            raise ToolError(f"The editor's terminal failed: {exc}") from exc
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(client.release_terminal(session_id=sid, terminal_id=tid))
        if out.exit_status is not None and code is None and sig is None:
            code, sig = out.exit_status.exit_code, out.exit_status.signal
        return TerminalRun(out.output, code, sig, timed_out, out.truncated)
