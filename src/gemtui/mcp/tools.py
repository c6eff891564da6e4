"""The one hook a session needs: start its MCP servers, keep their tools in its registry
while they are ready, stop them on close. ``agent.assembly`` calls it and nothing else."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gemtui.mcp.manager import McpManager, ServerState, ServerStatus
from gemtui.mcp.tool import make_tool

if TYPE_CHECKING:
    from gemtui.config.settings import McpServerSettings
    from gemtui.scheduler import PolicyEngine
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.sandbox import SandboxConfig

__all__ = ["McpTools", "tool_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]")


def tool_name(server: str, tool: str, taken: Callable[[str], bool]) -> str:
    """The tool's own name, or ``server__tool`` when that is taken; 64 safe characters."""
    own = _UNSAFE.sub("_", tool)[:64]
    if not taken(own):
        return own
    return _UNSAFE.sub("_", f"{server}__{tool}")[:64]


class McpTools:
    """MCP servers feeding a registry; ``on_change`` sees each state change (views)."""

    def __init__(
        self,
        servers: dict[str, McpServerSettings],
        registry: ToolRegistry,
        policy: PolicyEngine | None = None,
        on_change: Callable[[ServerState], None] | None = None,
        sandbox: SandboxConfig | None = None,
    ) -> None:
        self.registry = registry
        self.manager = McpManager(servers, on_change=self._changed, sandbox=sandbox)
        self._on_change = on_change
        self._names: dict[str, list[str]] = {}
        if policy is not None:
            from gemtui.scheduler.policy_rules import PolicyDecision, PolicyRule

            policy.add_rules(
                PolicyRule(PolicyDecision.ALLOW, tool_name="*", mcp_name=name, source="user")
                for name, conf in servers.items()
                if conf.trust
            )

    def start(self) -> None:
        self.manager.start()

    async def close(self) -> None:
        await self.manager.close()

    def _changed(self, state: ServerState) -> None:
        for name in self._names.pop(state.name, []):
            self.registry.unregister(name)
        if state.status is ServerStatus.READY:
            added: list[str] = []
            for info in state.tools:
                name = tool_name(state.name, info.name, lambda n: n in self.registry)
                if name in self.registry:
                    continue
                self.registry.register(make_tool(self.manager, state.name, info, name))
                added.append(name)
            self._names[state.name] = added
        self._offer_resource_tools()
        if self._on_change is not None:
            self._on_change(state)

    def _offer_resource_tools(self) -> None:
        """The resource tools while some ready server publishes resources, else not."""
        from gemtui.mcp.resources import resource_tools

        wanted = any(s.status is ServerStatus.READY and s.resources for s in self.manager.states())
        tools = resource_tools(self.manager)
        for tool in tools:
            present = tool.name in self.registry
            if wanted and not present:
                self.registry.register(tool)
            elif not wanted and present:
                self.registry.unregister(tool.name)

    def prompts(self) -> list[tuple[str, Any]]:
        """(server, prompt) of every ready server, for ``/server:prompt`` commands."""
        return [
            (s.name, p)
            for s in self.manager.states()
            if s.status is ServerStatus.READY
            for p in s.prompts
        ]
