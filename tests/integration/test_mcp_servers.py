"""Real MCP servers from PyPI (mcp-server-time, mcp-server-git over stdio) and an
``MCPServer`` over streamable HTTP on 127.0.0.1, driven through the manager and the tools
it registers: start, call, isError, a server that never starts, a server killed
mid-session and restarted, and no server process left after close."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gemtui.config.settings import McpServerSettings
from gemtui.mcp.manager import McpManager, ServerStatus
from gemtui.mcp.tools import McpTools
from gemtui.scheduler import PolicyEngine
from gemtui.scheduler.policy_rules import PolicyDecision
from gemtui.tools.base import ToolContext, ToolError
from gemtui.tools.registry import ToolRegistry
from gemtui.tools.workspace import Workspace
from tests.support.mcp_http import serving

BIN = Path(sys.executable).parent
TIME = McpServerSettings(command=str(BIN / "mcp-server-time"), args=["--local-timezone", "UTC"])


def _children() -> set[int]:
    """Pids whose parent is this test process (servers are started as our children)."""
    me = str(os.getpid())
    out: set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me and fields[0] != "Z":
                out.add(int(entry.name))
    return out


def _server_pids() -> set[int]:
    return {p for p in _children() if b"mcp-server" in _cmdline(p)}


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


async def _ready(manager: McpManager) -> None:
    await manager.wait_ready(30)


async def test_time_server_starts_lists_and_answers(tmp_path: Path) -> None:
    registry = ToolRegistry()
    tools = McpTools({"time": TIME}, registry)
    tools.start()
    await _ready(tools.manager)
    state = tools.manager.state("time")
    assert state is not None
    assert state.status is ServerStatus.READY, state
    assert "get_current_time" in registry
    tool = registry.get("get_current_time")
    assert tool is not None
    assert tool.server == "time"
    assert tool.validate({"timezone": "UTC"}) is None
    ctx = ToolContext(workspace=Workspace(tmp_path))
    result = await tool.build({"timezone": "UTC"}).execute(ctx)
    assert result.error is None
    assert '"timezone": "UTC"' in str(result.llm_content)
    bad = await tool.build({"timezone": "Not/AZone"}).execute(ctx)
    assert bad.error
    assert "Not/AZone" in bad.error
    assert _server_pids()
    await tools.close()  # bounded by the manager's STOP_GRACE, whatever the server does
    assert not _server_pids()
    assert "get_current_time" not in registry


async def test_git_server_status_of_a_fresh_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)  # noqa: ASYNC221 - set-up
    (repo / "new.txt").write_text("x\n")
    registry = ToolRegistry()
    git = McpServerSettings(command=str(BIN / "mcp-server-git"), args=["--repository", str(repo)])
    tools = McpTools({"git": git}, registry)
    tools.start()
    try:
        await _ready(tools.manager)
        tool = registry.get("git_status")
        assert tool is not None, tools.manager.states()
        result = await tool.build({"repo_path": str(repo)}).execute(
            ToolContext(workspace=Workspace(tmp_path))
        )
        assert result.error is None
        assert "new.txt" in str(result.llm_content)
    finally:
        await tools.close()
    assert not _server_pids()


async def test_name_clash_gets_server_prefix(tmp_path: Path) -> None:
    registry = ToolRegistry()
    tools = McpTools({"a": TIME, "b": TIME}, registry)
    tools.start()
    try:
        await _ready(tools.manager)
        names = set(registry.names())
        assert {"get_current_time", "b__get_current_time"} <= names or {
            "get_current_time",
            "a__get_current_time",
        } <= names
    finally:
        await tools.close()


async def test_a_server_that_never_starts_fails_with_a_reason() -> None:
    never = McpServerSettings(command=sys.executable, args=["-c", "import time; time.sleep(60)"])
    never.timeout = 500  # milliseconds, as in Gemini CLI
    missing = McpServerSettings(command="/nonexistent/mcp-server")
    seen: list[tuple[str, ServerStatus]] = []
    manager = McpManager(
        {"never": never, "missing": missing}, on_change=lambda s: seen.append((s.name, s.status))
    )
    manager.start()
    await manager.wait_ready(5)
    never_state, missing_state = manager.state("never"), manager.state("missing")
    assert never_state is not None
    assert never_state.status is ServerStatus.FAILED
    assert "no answer within 0.5s" in never_state.reason
    assert missing_state is not None
    assert "No such file" in missing_state.reason
    assert ("never", ServerStatus.STARTING) in seen
    assert ("never", ServerStatus.FAILED) in seen
    await manager.close()
    assert not [p for p in _children() if b"time.sleep(60)" in _cmdline(p)]


async def test_killed_server_gives_a_clear_error_and_restart_brings_it_back(
    tmp_path: Path,
) -> None:
    registry = ToolRegistry()
    tools = McpTools({"time": TIME}, registry)
    tools.start()
    ctx = ToolContext(workspace=Workspace(tmp_path))
    try:
        await _ready(tools.manager)
        tool = registry.get("get_current_time")
        assert tool is not None
        (pid,) = _server_pids()
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(ToolError, match="MCP server 'time'"):
            async with asyncio.timeout(10):
                await tool.build({"timezone": "UTC"}).execute(ctx)
        state = tools.manager.state("time")
        assert state is not None
        assert state.status is ServerStatus.FAILED
        assert "get_current_time" not in registry
        await tools.manager.restart("time")
        await _ready(tools.manager)
        again = registry.get("get_current_time")
        assert again is not None
        result = await again.build({"timezone": "UTC"}).execute(ctx)
        assert result.error is None
    finally:
        await tools.close()
    assert not _server_pids()


async def test_trusted_server_is_allowed_by_policy_untrusted_asks() -> None:
    registry = ToolRegistry()
    policy = PolicyEngine()
    trusted = TIME.model_copy(update={"trust": True})
    tools = McpTools({"trusted": trusted, "plain": TIME}, registry, policy)
    tools.start()
    try:
        await _ready(tools.manager)
        by_server = {t.server: t for t in registry.tools()}
        args = {"timezone": "UTC"}
        assert policy.decide(by_server["trusted"], args, "default").decision is (
            PolicyDecision.ALLOW
        )
        assert policy.decide(by_server["plain"], args, "default").decision is PolicyDecision.ASK
    finally:
        await tools.close()


@pytest.fixture
async def http_server() -> AsyncIterator[str]:
    """A small ``MCPServer`` over streamable HTTP, listening before the test connects."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("adder")

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two numbers."""
        return str(a + b)

    async with serving(server) as url:
        yield url


async def test_streamable_http_server(http_server: str, tmp_path: Path) -> None:
    registry = ToolRegistry()
    tools = McpTools({"adder": McpServerSettings(httpUrl=http_server)}, registry)
    tools.start()
    try:
        await _ready(tools.manager)
        tool = registry.get("add")
        assert tool is not None, tools.manager.states()
        result = await tool.build({"a": 2, "b": 40}).execute(
            ToolContext(workspace=Workspace(tmp_path))
        )
        assert result.error is None
        assert "42" in str(result.llm_content)
    finally:
        await tools.close()


async def test_terminate_without_the_loop_ends_every_server_group() -> None:
    """The TUI ends after its event loop: the synchronous net still ends the servers."""
    registry = ToolRegistry()
    tools = McpTools({"a": TIME, "b": TIME}, registry)
    tools.start()
    await _ready(tools.manager)
    pids = _server_pids()
    assert len(pids) == 2
    started = asyncio.get_running_loop().time()
    tools.manager.terminate()
    assert asyncio.get_running_loop().time() - started < 1.0
    assert not (_server_pids() & pids)
    await tools.close()
