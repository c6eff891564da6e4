"""An ACP client for tests: the official package's client side over a real subprocess.

It plays an editor: it keeps "open buffers" (``fs/*`` go to them instead of the disk),
answers permission requests from a script, records every update, and validates every
message the agent sends against the package's schema models.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp import RequestError, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CloseSessionResponse,
    CreateTerminalRequest,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    InitializeResponse,
    KillTerminalRequest,
    ListSessionsResponse,
    LoadSessionResponse,
    LogoutResponse,
    NewSessionResponse,
    PromptResponse,
    ReadTextFileRequest,
    ReadTextFileResponse,
    ReleaseTerminalRequest,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ResumeSessionResponse,
    SessionNotification,
    SetSessionModeResponse,
    TerminalOutputRequest,
    TerminalOutputResponse,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
    WriteTextFileResponse,
)

REQUEST_MODELS = {
    "terminal/create": CreateTerminalRequest,
    "terminal/output": TerminalOutputRequest,
    "terminal/wait_for_exit": WaitForTerminalExitRequest,
    "terminal/release": ReleaseTerminalRequest,
    "terminal/kill": KillTerminalRequest,
    "session/update": SessionNotification,
    "session/request_permission": RequestPermissionRequest,
    "fs/read_text_file": ReadTextFileRequest,
    "fs/write_text_file": WriteTextFileRequest,
}
RESULT_MODELS = {
    "initialize": InitializeResponse,
    "session/new": NewSessionResponse,
    "session/load": LoadSessionResponse,
    "session/prompt": PromptResponse,
    "session/set_mode": SetSessionModeResponse,
    "session/list": ListSessionsResponse,
    "session/resume": ResumeSessionResponse,
    "session/close": CloseSessionResponse,
    "logout": LogoutResponse,
}


class EditorClient:
    """What an editor does for the agent, with everything recorded."""

    def __init__(self, permission: str | None = "allow_once") -> None:
        self.permission = permission
        """The option chosen for every permission request (None: cancelled)."""
        self.buffers: dict[str, str] = {}
        self.updates: list[Any] = []
        self.permission_requests: list[RequestPermissionRequest] = []
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, dict[str, Any]] = {}
        self.update_arrived = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        self.update_arrived.set()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(
            RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options)
        )
        if self.permission is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.permission)
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        on_disk = await asyncio.to_thread(_disk_text, Path(path))
        if on_disk is not None:
            return ReadTextFileResponse(content=on_disk)
        raise RequestError.resource_not_found(path)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        terminal_id = f"term-{len(self.terminals) + 1}"
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        self.terminals[terminal_id] = {
            "command": command,
            "args": args,
            "cwd": cwd,
            "proc": proc,
            "output": asyncio.ensure_future(proc.stdout.read()),  # type: ignore[union-attr]
            "released": False,
        }
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        code = await self.terminals[terminal_id]["proc"].wait()
        return WaitForTerminalExitResponse(exit_code=code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        term = self.terminals[terminal_id]
        data = await term["output"]
        return TerminalOutputResponse(output=data.decode(), truncated=False)

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        self.terminals[terminal_id]["released"] = True

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.terminals[terminal_id]["proc"].kill()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def of_kind(self, kind: str) -> list[Any]:
        return [u for u in self.updates if getattr(u, "session_update", None) == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of_kind(kind))


def _disk_text(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


class Validator:
    """Checks every message from the agent against the schema; keeps the raw lines."""

    def __init__(self) -> None:
        self.raw: list[str] = []
        self.sent: dict[Any, str] = {}
        self.errors: list[str] = []

    def __call__(self, event: StreamEvent) -> None:
        message = event.message
        if event.direction is StreamDirection.OUTGOING:
            if "method" in message and "id" in message:
                self.sent[message["id"]] = message["method"]
            return
        self.raw.append(json.dumps(message))
        try:
            self._check(message)
        except Exception as exc:
            self.errors.append(f"{exc}: {json.dumps(message)[:500]}")

    def _check(self, message: dict[str, Any]) -> None:
        assert message.get("jsonrpc") == "2.0"
        method = message.get("method")
        if method is not None:
            model = REQUEST_MODELS.get(method)
            assert model is not None, f"unexpected method {method}"
            model.model_validate(message.get("params"))
            return
        if "error" in message:
            return
        method = self.sent.get(message.get("id"))
        model = RESULT_MODELS.get(method or "")
        if model is not None:
            model.model_validate(message["result"])


class _StrayLines(logging.Handler):
    """Collects the reader's complaints about lines that were not JSON-RPC."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "JSON-RPC" in record.getMessage():
            self.records.append(record.getMessage())


@contextlib.asynccontextmanager
async def acp_agent(
    client: EditorClient, *, env: dict[str, str], cwd: Path, args: tuple[str, ...] = ()
) -> AsyncIterator[tuple[ClientSideConnection, Validator]]:
    """``gemtui --acp`` as a subprocess, connected and initialised.

    A line on the agent's stdout that is not JSON-RPC is logged (and skipped) by the
    package's reader: any such log record fails the test, so stdout stays protocol-only.
    """
    validator = Validator()
    stray = _StrayLines()
    logging.getLogger().addHandler(stray)
    async with spawn_agent_process(
        client,
        sys.executable,
        "-m",
        "gemtui",
        "--acp",
        *args,
        env=env,
        cwd=cwd,
        observers=[validator],
    ) as (conn, process):
        try:
            yield conn, validator
        finally:
            logging.getLogger().removeHandler(stray)
    assert not validator.errors, validator.errors
    assert not stray.records, stray.records
    assert process.returncode == 0  # the client closed stdin: a clean exit


async def logout(conn: ClientSideConnection) -> Any:
    """ACP's ``logout`` (the package's client has no method for it yet: sent as is)."""
    return await conn._conn.send_request("logout", {})


def editor_caps(*, terminal: bool = False) -> ClientCapabilities:
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=terminal
    )
