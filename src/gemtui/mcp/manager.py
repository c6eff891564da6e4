"""Start the configured MCP servers in the background and keep track of each one's state.

Each server lives in its own asyncio task, which enters the SDK's transport and
``ClientSession`` and leaves them again (anyio cancel scopes must be entered and exited in
the same task). A session is never blocked on a server: ``start`` returns at once,
``wait_ready`` is for headless runs that want the tools before the first model call.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

from msgspec import Struct, field

from gemtui.tools.background import BackgroundJobs

T = TypeVar("T")

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import CallToolResult
    from mcp.types import Tool as McpToolInfo

    from gemtui.config.settings import McpServerSettings
    from gemtui.tools.sandbox import SandboxConfig

__all__ = ["DEFAULT_START_TIMEOUT", "McpManager", "ServerState", "ServerStatus"]

DEFAULT_START_TIMEOUT = 30.0
"""Seconds a server without ``timeout`` may take to start and list its tools."""
DEFAULT_CALL_TIMEOUT = 600.0
"""Seconds a call may take when the server names no ``timeout`` (Gemini CLI's 10 minutes)."""
STOP_GRACE = 0.8
"""Seconds the servers get to shut down on close: gemtui's exit stays under a second."""

_VAR = re.compile(r"\$(\w+)|\$\{(\w+)\}")


def expand(value: str, environ: dict[str, str] | None = None) -> str:
    """``$VAR`` and ``${VAR}`` from the environment; an unset variable becomes empty."""
    env = os.environ if environ is None else environ
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), ""), value)


class ServerStatus(StrEnum):
    """Where a server is in its life, as views show it."""

    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    DISABLED = "disabled"
    STOPPED = "stopped"


class ServerState(Struct):
    """What views show for one server."""

    name: str
    transport: str
    status: ServerStatus = ServerStatus.STARTING
    reason: str = ""
    tools: list[McpToolInfo] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    resources: list[Any] = field(default_factory=list)
    """The server's resources (``mcp.types.Resource``: uri, name, description…)."""
    prompts: list[Any] = field(default_factory=list)
    """The server's prompts (``mcp.types.Prompt``: name, description, arguments)."""


def transport_of(conf: McpServerSettings) -> str:
    if conf.command:
        return "stdio"
    if conf.httpUrl:
        return "http"
    if conf.url:
        return "sse"
    return "none"


class _Server:
    def __init__(self, name: str, conf: McpServerSettings) -> None:
        self.name = name
        self.conf = conf
        self.state = ServerState(name, transport_of(conf))
        self.session: ClientSession | None = None
        self.task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()
        self.stop = asyncio.Event()


class McpManager:
    """The session's MCP servers: start, state, calls, restart and stop.

    ``on_change`` is called with a server's state each time it changes (views publish it).
    """

    def __init__(
        self,
        servers: dict[str, McpServerSettings],
        on_change: Callable[[ServerState], None] | None = None,
        sandbox: SandboxConfig | None = None,
    ) -> None:
        self._confs = dict(servers)
        self._servers: dict[str, _Server] = {}
        self._on_change = on_change
        self.sandbox = sandbox
        """Start stdio servers under bubblewrap (``[tools.sandbox] mcp``)."""
        self.jobs = BackgroundJobs()
        """The stdio servers' process groups: ``terminate`` ends them without a loop, and
        the atexit net of ``tools.background`` ends any a crash left behind."""

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        """Start every configured server in the background (returns at once)."""
        for name in self._confs:
            self._launch(name)

    def _launch(self, name: str) -> None:
        server = _Server(name, self._confs[name])
        self._servers[name] = server
        server.task = asyncio.get_running_loop().create_task(self._run(server))
        self._changed(server)

    async def wait_ready(self, limit: float | None = None) -> None:
        """Wait until every server is ready or failed, each bounded by its timeout."""
        waits = [s.ready.wait() for s in self._servers.values()]
        if waits:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waits), limit or self._longest())

    def _longest(self) -> float:
        return max(
            (c.timeout_seconds or DEFAULT_START_TIMEOUT for c in self._confs.values()), default=1
        )

    async def restart(self, name: str) -> None:
        """Stop ``name`` (if running) and start it again."""
        await self._stop(name)
        self._launch(name)

    async def disable(self, name: str) -> None:
        await self._stop(name)
        server = self._servers[name]
        server.state.status = ServerStatus.DISABLED
        server.state.tools = []
        self._changed(server)

    async def close(self) -> None:
        """Stop every server; bounded so gemtui's exit stays under a second."""
        await asyncio.gather(*(self._stop(n) for n in list(self._servers)))

    def terminate(self) -> None:
        """End every stdio server's process group now (synchronous: after the loop ended)."""
        self.jobs.terminate()

    async def _stop(self, name: str) -> None:
        server = self._servers.get(name)
        if server is None or server.task is None:
            return
        server.stop.set()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(server.task), STOP_GRACE)
        if not server.task.done():
            server.task.cancel()
            with contextlib.suppress(BaseException):
                await server.task

    # -- state ---------------------------------------------------------------------------

    def settings_of(self, name: str) -> McpServerSettings | None:
        """How server ``name`` is reached (a hook's ``mcp_context`` names it)."""
        return self._confs.get(name)

    def states(self) -> list[ServerState]:
        return [s.state for s in self._servers.values()]

    def state(self, name: str) -> ServerState | None:
        server = self._servers.get(name)
        return server.state if server else None

    def _changed(self, server: _Server) -> None:
        if self._on_change is not None:
            self._on_change(server.state)

    def _fail(self, server: _Server, reason: str) -> None:
        server.state.status = ServerStatus.FAILED
        server.state.reason = reason
        server.state.errors = [*server.state.errors[-9:], reason]
        server.session = None
        server.ready.set()
        self._changed(server)

    # -- the server's task ---------------------------------------------------------------

    async def _run(self, server: _Server) -> None:
        conf = server.conf
        timeout = conf.timeout_seconds or DEFAULT_START_TIMEOUT
        try:
            async with contextlib.AsyncExitStack() as stack:
                async with asyncio.timeout(timeout):  # same task: the SDK's scopes need it
                    session = await self._connect(stack, conf)
                    listed = await session.list_tools()
                    resources, prompts = await _extras(session)
                server.session = session
                server.state.tools = [t for t in listed.tools if _offered(conf, t.name)]
                server.state.resources = resources
                server.state.prompts = prompts
                server.state.status = ServerStatus.READY
                server.state.reason = ""
                server.ready.set()
                self._changed(server)
                await server.stop.wait()
                server.session = None
            server.state.status = ServerStatus.STOPPED
            self._changed(server)
        except asyncio.CancelledError:  # cut short (a close past its grace): stopped all the same
            server.session = None
            server.state.status = ServerStatus.STOPPED
            self._changed(server)
            raise
        except BaseException as exc:  # any failure is the server's state, said in one line
            if isinstance(_root(exc), TimeoutError):
                self._fail(server, f"no answer within {timeout:g}s")
            else:
                self._fail(server, _reason(exc))

    async def _connect(self, stack: contextlib.AsyncExitStack, conf: McpServerSettings) -> Any:
        from mcp import ClientSession, StdioServerParameters, stdio_client

        if conf.command:
            argv = [expand(conf.command), *(expand(a) for a in conf.args)]
            if self.sandbox is not None:
                from gemtui.tools.sandbox import require_bwrap, wrap_command

                launched = wrap_command(argv, self.sandbox, require_bwrap())
                stack.callback(launched.release)  # placeholders go when the server stops
                argv = launched.argv
            params = StdioServerParameters(
                command=argv[0],
                args=argv[1:],
                env={k: expand(v) for k, v in conf.env.items()},
                cwd=expand(conf.cwd) if conf.cwd else None,
            )
            # the server's stderr is its own log, not ours
            devnull = stack.enter_context(open(os.devnull, "w"))  # noqa: ASYNC230, SIM115
            before = _session_leaders()
            read, write = await stack.enter_async_context(stdio_client(params, devnull))
            for pgid in _session_leaders() - before:  # the SDK starts it in its own group
                self.jobs.adopt(pgid)
        elif conf.httpUrl:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            headers = {k: expand(v) for k, v in conf.headers.items()}
            client = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            read, write = await stack.enter_async_context(
                streamable_http_client(expand(conf.httpUrl), http_client=client)
            )
        elif conf.url:
            from mcp.client.sse import sse_client

            headers = {k: expand(v) for k, v in conf.headers.items()}
            read, write = await stack.enter_async_context(
                sse_client(expand(conf.url), headers=headers)
            )
        else:
            raise ValueError("no command, httpUrl or url")
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        return session

    # -- calls ---------------------------------------------------------------------------

    async def _ask(self, name: str, request: Callable[[ClientSession], Awaitable[T]]) -> T:
        """One request to server ``name``, bounded by its timeout; ``McpCallError`` says why."""
        server = self._servers.get(name)
        if server is None or server.session is None:
            state = server.state if server else None
            why = f" ({state.status}: {state.reason})" if state and state.reason else ""
            raise McpCallError(f"MCP server {name!r} is not ready{why}")
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED

        timeout = server.conf.timeout_seconds or DEFAULT_CALL_TIMEOUT
        try:
            async with asyncio.timeout(timeout):
                return await request(server.session)
        except TimeoutError:
            raise McpCallError(f"MCP server {name!r} did not answer within {timeout:g}s") from None
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:  # the server answered an error: still alive
                raise McpCallError(f"MCP server {name!r} refused: {exc.message}") from None
            self._fail(server, exc.message)
            raise McpCallError(f"MCP server {name!r} failed: {exc.message}") from None
        except Exception as exc:
            reason = _reason(exc)
            self._fail(server, reason)
            raise McpCallError(f"MCP server {name!r} failed: {reason}") from None

    async def read_resource(self, name: str, uri: str) -> str:
        """The text of resource ``uri`` on server ``name`` (binary parts said, not dumped)."""
        result = await self._ask(name, lambda s: s.read_resource(uri))
        texts = []
        for item in result.contents:
            text = getattr(item, "text", None)
            kind = getattr(item, "mimeType", None) or "binary"
            texts.append(text if isinstance(text, str) else f"[{kind} content of {item.uri}]")
        return "\n".join(texts)

    async def get_prompt(self, name: str, prompt: str, args: dict[str, str]) -> str:
        """Prompt ``prompt`` of server ``name`` filled with ``args``, as one text."""
        result = await self._ask(name, lambda s: s.get_prompt(prompt, args))
        texts = []
        for message in result.messages:
            text = getattr(message.content, "text", None)
            if isinstance(text, str):
                texts.append(text)
        return "\n\n".join(texts)

    async def call(self, name: str, tool: str, args: dict[str, Any]) -> CallToolResult:
        """Call ``tool`` on server ``name``; a clear ``McpCallError`` on any failure."""
        result = await self._ask(name, lambda s: s.call_tool(tool, args))
        from mcp.types import CallToolResult

        if not isinstance(result, CallToolResult):
            raise McpCallError(f"MCP server {name!r} asked for input, which gemtui cannot give")
        return result


async def _extras(session: ClientSession) -> tuple[list[Any], list[Any]]:
    """The server's resources and prompts when it offers them (a failure: none)."""
    caps = session.server_capabilities
    resources: list[Any] = []
    prompts: list[Any] = []
    if caps is not None and caps.resources is not None:
        with contextlib.suppress(Exception):
            resources = list((await session.list_resources()).resources)
    if caps is not None and caps.prompts is not None:
        with contextlib.suppress(Exception):
            prompts = list((await session.list_prompts()).prompts)
    return resources, prompts


class McpCallError(Exception):
    """A call that could not reach its server or got no answer."""


def _offered(conf: McpServerSettings, tool: str) -> bool:
    if conf.includeTools is not None and tool not in conf.includeTools:
        return False
    return not (conf.excludeTools and tool in conf.excludeTools)


def _session_leaders() -> set[int]:
    """Our children that lead their own process group (how the SDK starts a server)."""
    me = str(os.getpid())
    out: set[int] = set()
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me and fields[2] == entry.name:
                out.add(int(entry.name))
    return out


def _root(exc: BaseException) -> BaseException:
    """The first real failure inside the exception groups the SDK's task groups raise."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    """One line for a failure."""
    exc = _root(exc)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
