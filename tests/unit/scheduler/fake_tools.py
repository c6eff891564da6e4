"""Tiny tools for scheduler and policy tests: a kind, a name, and a scripted behaviour."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from gemtui.bus import (
    Decision,
    Event,
    EventBus,
    ToolCallSnapshot,
    ToolCallState,
    ToolCallStateChanged,
)
from gemtui.tools.base import (
    Confirmation,
    Tool,
    ToolContext,
    ToolInvocation,
    ToolKind,
    ToolResult,
)

RunFn = Callable[["FakeInvocation", ToolContext], Awaitable[ToolResult]]


class FakeInvocation(ToolInvocation):
    tool: FakeTool

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        command = self.args.get("command")
        return Confirmation(kind="info", title=self.describe(), command=command)

    def modify(self, proposed: str) -> None:
        self.args = {**self.args, "content": proposed}

    async def execute(self, ctx: ToolContext) -> ToolResult:
        if self.tool.run is not None:
            return await self.tool.run(self, ctx)
        return ToolResult(llm_content=f"{self.tool.name} ok")


class FakeTool(Tool):
    name = "fake"

    def __init__(self, run: RunFn | None = None) -> None:
        self.run = run

    def build(self, args: dict[str, Any]) -> FakeInvocation:
        return FakeInvocation(self, args)


def make_tool(
    name: str,
    kind: ToolKind,
    run: RunFn | None = None,
    *,
    parameters: dict[str, Any] | None = None,
    server: str | None = None,
    aliases: tuple[str, ...] = (),
) -> FakeTool:
    attrs: dict[str, Any] = {"name": name, "kind": kind, "server": server, "aliases": aliases}
    if parameters is not None:
        attrs["parameters"] = parameters
    cls = type(f"Fake_{name}", (FakeTool,), attrs)
    tool: FakeTool = cls(run)
    return tool


class FakeRegistry:
    """The two registry methods the scheduler uses."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools = {t.name: t for t in tools}

    def register(self, tool: Tool) -> None:
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return sorted(self._tools)


def record_events(bus: EventBus) -> list[Event]:
    events: list[Event] = []
    bus.subscribe(events.append)
    return events


def snapshots_of(events: list[Event], call_id: str | None = None) -> list[ToolCallSnapshot]:
    return [
        e.call
        for e in events
        if isinstance(e, ToolCallStateChanged) and (call_id is None or e.call.call_id == call_id)
    ]


def start_approver(
    bus: EventBus, answer: Callable[[ToolCallSnapshot], Decision | None]
) -> asyncio.Task[None]:
    """A subscriber task answering approval requests the way a person at the TUI would.

    ``answer`` returning None leaves the request pending (to test cancellation).
    """
    sub = bus.subscription()

    async def loop() -> None:
        try:
            async for event in sub:
                if (
                    isinstance(event, ToolCallStateChanged)
                    and event.call.state is ToolCallState.AWAITING_APPROVAL
                ):
                    decision = answer(event.call)
                    if decision is not None:
                        assert event.call.correlation_id is not None
                        bus.decide(event.call.correlation_id, decision)
        finally:
            sub.close()

    return asyncio.create_task(loop())
