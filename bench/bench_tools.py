"""Tiny tools for engine benchmarks: a no-op and a sleeping read."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from gemtui.tools.base import Tool, ToolContext, ToolInvocation, ToolKind, ToolResult


class _Noop(ToolInvocation):
    async def execute(self, ctx: ToolContext) -> ToolResult:
        return ToolResult(llm_content="ok", display="ok")


class NoopTool(Tool):
    name = "noop"
    kind = ToolKind.READ
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"i": {"type": "integer"}},
    }

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return _Noop(self, args)


class _Sleep(ToolInvocation):
    async def execute(self, ctx: ToolContext) -> ToolResult:
        await asyncio.sleep(float(self.args["seconds"]))
        return ToolResult(llm_content="slept")


class SleepTool(Tool):
    name = "sleep_read"
    kind = ToolKind.READ
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"seconds": {"type": "number"}},
        "required": ["seconds"],
    }

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return _Sleep(self, args)
