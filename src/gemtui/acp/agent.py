"""The ACP agent: ``initialize``, sessions, prompts, modes and cancel over one connection.

The official package parses and routes every JSON-RPC message; this class answers them
with gemtui sessions. Errors a person must act on (no API key, a broken config) reach the
client as JSON-RPC errors carrying the same message the CLI would print.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.helpers import update_available_commands, update_current_mode
from acp.interfaces import Client
from acp.schema import (
    AgentAuthCapabilities,
    AgentCapabilities,
    AuthenticateResponse,
    AvailableCommand,
    ClientCapabilities,
    CloseSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    LogoutCapabilities,
    LogoutResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionAdditionalDirectoriesCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SessionResumeCapabilities,
    SetSessionModeResponse,
)

from gemtui import __version__
from gemtui.acp import auth
from gemtui.acp.auth import fatal as _fatal
from gemtui.acp.commands import available_commands, run_command
from gemtui.acp.conversation import Conversation
from gemtui.acp.files import ClientFiles
from gemtui.acp.prompt_blocks import prompt_from_blocks
from gemtui.acp.replay import replay
from gemtui.acp.setup import build
from gemtui.acp.terminals import ClientTerminals
from gemtui.agent.assembly import RunOptions
from gemtui.bus import Event, McpServerChanged
from gemtui.errors import FatalError
from gemtui.modes import ApprovalMode
from gemtui.wire import Content

__all__ = ["GemtuiAgent"]

log = logging.getLogger(__name__)

MODES = (
    SessionMode(
        id=ApprovalMode.DEFAULT, name="Default", description="Reads run; edits and commands ask"
    ),
    SessionMode(
        id=ApprovalMode.AUTO_EDIT, name="Auto edit", description="Edits run too; commands ask"
    ),
    SessionMode(
        id=ApprovalMode.PLAN, name="Plan", description="Read-only: the model plans, nothing changes"
    ),
    SessionMode(id=ApprovalMode.YOLO, name="YOLO", description="Everything runs without asking"),
)


PAGE = 50
"""Sessions in one ``session/list`` answer; ``nextCursor`` brings the next page."""


class GemtuiAgent:
    """One editor connection: any number of sessions, one prompt at a time each."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.client: Client | None = None
        self.caps = ClientCapabilities()
        self.sessions: dict[str, Conversation] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.auth_method: str | None = None
        """The method the client authenticated with (``logout`` clears its credential)."""
        self._unchosen = options
        """The options before an ``authenticate`` chose a provider (``logout`` restores)."""

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.caps = client_capabilities or ClientCapabilities()
        log.info("ACP client %s, protocol %s", client_info, protocol_version)
        return InitializeResponse(
            # the one version gemtui speaks: the client's when it asked for it, else the
            # latest we support (the client then decides whether to go on)
            protocol_version=PROTOCOL_VERSION,
            agent_info=Implementation(name="gemtui", title="gemtui", version=__version__),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    resume=SessionResumeCapabilities(),
                    close=SessionCloseCapabilities(),
                    additional_directories=SessionAdditionalDirectoriesCapabilities(),
                ),
                auth=AgentAuthCapabilities(logout=LogoutCapabilities()),
            ),
            auth_methods=list(auth.AUTH_METHODS),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        await auth.authenticate(method_id)
        self.auth_method = method_id
        self.options = self._unchosen
        if method_id == auth.VERTEX and self.options.provider is None:
            self.options = replace(self.options, provider="vertex")  # the sessions after it
        return AuthenticateResponse()

    async def logout(self, **kwargs: Any) -> LogoutResponse:
        """Forget the credential of the method in use (the chosen one, else the one the
        sessions would take); the next session asks for authentication again."""
        method = self.auth_method or await asyncio.to_thread(auth.method_in_use)
        await asyncio.to_thread(auth.logout, method)
        self.auth_method = None
        self.options = self._unchosen
        return LogoutResponse()

    # -- sessions -----------------------------------------------------------------
    async def _open(
        self,
        cwd: str,
        mcp_servers: list[Any] | None,
        resume: str | None = None,
        additional: list[str] | None = None,
    ) -> Conversation:
        assert self.client is not None
        try:
            built = await asyncio.to_thread(
                build,
                self.options,
                cwd,
                resume=resume,
                mcp_servers=mcp_servers,
                additional_directories=additional,
            )
        except FatalError as exc:
            raise _fatal(exc) from exc
        conv = Conversation(self.client, built.assembled)
        fs = self.caps.fs
        if fs is not None and (fs.read_text_file or fs.write_text_file):
            conv.session.use_client_io(
                files=ClientFiles(
                    self.client,
                    conv.id,
                    read=bool(fs.read_text_file),
                    write=bool(fs.write_text_file),
                )
            )
        if self.caps.terminal:
            terminals = ClientTerminals(self.client, conv.id, conv.show_terminal)
            conv.session.use_client_io(terminals=terminals)
        conv.on_event = self._on_event
        self.sessions[conv.id] = conv
        built.assembled.record()
        conv.session.start()
        if built.notice:
            await conv.say(f"{built.notice}\n\n")
        return conv

    async def _on_event(self, conv: Conversation, event: Event) -> None:
        """A server that became ready brings its prompts: offer the commands again."""
        if isinstance(event, McpServerChanged) and event.status == "ready" and conv.commands_sent:
            await conv.send(update_available_commands(available_commands(conv.session)))

    def _modes(self, conv: Conversation) -> SessionModeState:
        return SessionModeState(
            current_mode_id=conv.session.approval_mode, available_modes=list(MODES)
        )

    async def _announce_soon(self, conv: Conversation) -> None:
        await asyncio.sleep(0.05)  # the session/new answer is written first
        await self._announce_commands(conv)

    async def _announce_commands(self, conv: Conversation) -> None:
        """The slash commands, once per session (soon after it opens, or before its first
        prompt, whichever comes first)."""
        if conv.commands_sent:
            return
        conv.commands_sent = True
        commands: list[AvailableCommand] = available_commands(conv.session)
        await conv.send(update_available_commands(commands))

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        conv = await self._open(cwd, mcp_servers, additional=additional_directories)
        # after the answer, so the client knows the session the update names
        task = asyncio.get_running_loop().create_task(self._announce_soon(conv))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return NewSessionResponse(session_id=conv.id, modes=self._modes(conv))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse | None:
        conv = await self._reopen(cwd, session_id, mcp_servers, additional_directories)
        registry = conv.session.registry

        def kind_of(name: str) -> str:
            tool = registry.get(name)
            return str(tool.kind) if tool is not None else "other"

        history = list(conv.session.history)
        children = await asyncio.to_thread(_subagent_stories, conv)
        for update in replay(history, conv.session.workspace.root, kind_of, children):
            await conv.send(update)
        await self._announce_commands(conv)
        return LoadSessionResponse(modes=self._modes(conv))

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        """``session/load`` without the replay: the editor still shows the thread."""
        conv = await self._reopen(cwd, session_id, mcp_servers, additional_directories)
        await self._announce_commands(conv)
        return ResumeSessionResponse(modes=self._modes(conv))

    async def _reopen(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None, additional: list[str] | None
    ) -> Conversation:
        """The stored session, open again (a copy already open here is closed first)."""
        old = self.sessions.pop(session_id, None)
        if old is not None:
            await old.close()
        return await self._open(cwd, mcp_servers, resume=session_id, additional=additional)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """Stop the session's work and free it (its MCP servers, its store handle); it
        stays stored, so ``session/load`` or ``session/resume`` bring it back."""
        conv = self._conv(session_id)
        del self.sessions[session_id]
        await conv.close()
        return CloseSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        from gemtui.store import SessionStore

        try:
            offset = max(0, int(cursor or 0))
        except ValueError:
            raise RequestError.invalid_params({"cursor": cursor}) from None

        def read() -> list[SessionInfo]:
            with SessionStore(writable=False) as store:
                rows = store.list_sessions(cwd, limit=PAGE + 1, offset=offset)
            return [
                SessionInfo(
                    session_id=r.id,
                    cwd=r.workspace,
                    title=r.title or None,
                    updated_at=datetime.fromtimestamp(r.updated, UTC).isoformat(),
                )
                for r in rows
            ]

        try:
            sessions = await asyncio.to_thread(read)
        except Exception as exc:
            log.warning("cannot list sessions: %s", exc)
            sessions = []
        more = len(sessions) > PAGE
        return ListSessionsResponse(
            sessions=sessions[:PAGE], next_cursor=str(offset + PAGE) if more else None
        )

    def _conv(self, session_id: str) -> Conversation:
        conv = self.sessions.get(session_id)
        if conv is None:
            raise RequestError.invalid_params({"sessionId": session_id, "reason": "unknown"})
        return conv

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse | None:
        conv = self._conv(session_id)
        if mode_id not in {m.id for m in MODES}:
            raise RequestError.invalid_params({"modeId": mode_id})
        conv.session.set_approval_mode(mode_id)
        await conv.send(update_current_mode(mode_id))
        return SetSessionModeResponse()

    # -- prompts ------------------------------------------------------------------
    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        conv = self._conv(session_id)
        if conv.busy:
            raise RequestError.invalid_request({"reason": "a prompt is already running"})
        conv.busy = True  # before the first await: a second prompt must not slip in
        try:
            await self._announce_commands(conv)
            text, media = prompt_from_blocks(prompt, conv.session.workspace.root)
            if not text and not media:
                return PromptResponse(stop_reason="end_turn")
            if text.startswith("/") and not media:
                await conv.session.wait_mcp()  # a server's prompts are commands too
                ran = await run_command(conv, text)
                if ran is True:
                    return PromptResponse(stop_reason="end_turn")
                if isinstance(ran, str):
                    text = ran
            stop = await conv.prompt(text, media)
        finally:
            conv.busy = False
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        conv = self.sessions.get(session_id)
        if conv is not None:
            conv.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        for conv in list(self.sessions.values()):
            await conv.close()
        self.sessions.clear()


def _subagent_stories(conv: Conversation) -> dict[str, list[Content]]:
    """Each delegation's stored story by the call that started it (none without a store)."""
    store = conv.built.store
    if store is None:
        return {}
    try:
        return {k: t.contents for k, t in store.subagent_transcripts(conv.id).items()}
    except Exception:  # a view of the past must never stop the load
        log.exception("cannot read the subagents' stories")
        return {}
