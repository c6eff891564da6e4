"""MCP figures for `make bench`: start until the first server's tools are offered, and what
gemtui adds to each MCP call over the SDK's own ``call_tool`` (same server, same call)."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

TIME_SERVER = str(Path(sys.executable).parent / "mcp-server-time")
ARGS = {"timezone": "UTC"}


async def tools_offered() -> float:
    """Seconds from ``start()`` until ``get_current_time`` is in the registry."""
    from gemtui.config.settings import McpServerSettings
    from gemtui.mcp.tools import McpTools
    from gemtui.tools.registry import ToolRegistry

    ready = asyncio.Event()
    registry = ToolRegistry()
    tools = McpTools(
        {"time": McpServerSettings(command=TIME_SERVER)},
        registry,
        on_change=lambda _s: ready.set() if "get_current_time" in registry else None,
    )
    started = time.perf_counter()
    tools.start()
    await asyncio.wait_for(ready.wait(), 30)
    elapsed = time.perf_counter() - started
    await tools.close()
    return elapsed


async def call_overhead(n: int = 100) -> tuple[float, float]:
    """Seconds per call: the SDK's ``call_tool`` alone, and through the gemtui tool."""
    from gemtui.config.settings import McpServerSettings
    from gemtui.mcp.tools import McpTools
    from gemtui.tools.base import ToolContext
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.workspace import Workspace

    registry = ToolRegistry()
    tools = McpTools({"time": McpServerSettings(command=TIME_SERVER)}, registry)
    tools.start()
    await tools.manager.wait_ready(30)
    tool = registry.get("get_current_time")
    session = tools.manager._servers["time"].session
    assert tool is not None
    assert session is not None
    with tempfile.TemporaryDirectory() as tmp:
        ctx = ToolContext(workspace=Workspace(Path(tmp)))
        started = time.perf_counter()
        for _ in range(n):
            await session.call_tool("get_current_time", ARGS)
        raw = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(n):
            err = tool.validate(ARGS)
            assert err is None
            await tool.build(ARGS).execute(ctx)
        ours = time.perf_counter() - started
    await tools.close()
    return raw / n, ours / n
