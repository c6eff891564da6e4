"""``list_mcp_resources`` and ``read_mcp_resource``: what MCP servers publish, for the model.

Why tools and not context: a server may publish many resources; the model lists them and
reads the ones it needs, as Gemini CLI lets it. Both only read, so they run unasked in
the default mode, and they are offered only while a ready server has resources.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from gemtui.mcp.manager import McpCallError, ServerStatus
from gemtui.tools.base import Tool, ToolContext, ToolError, ToolInvocation, ToolKind, ToolResult

if TYPE_CHECKING:
    from gemtui.mcp.manager import McpManager

__all__ = ["ListMcpResources", "ReadMcpResource", "resource_tools"]


class _ResourceTool(Tool):
    manager: ClassVar[McpManager]


class ListMcpResources(_ResourceTool):
    """What every ready server publishes, one line per resource."""

    name = "list_mcp_resources"
    display_name = "List MCP resources"
    description = (
        "Lists the resources the connected MCP servers publish (server, URI, name, "
        "description). Read one with read_mcp_resource."
    )
    kind = ToolKind.SEARCH
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "Only this server's resources."}
        },
    }

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return _ListInvocation(self, args)


class _ListInvocation(ToolInvocation):
    tool: ListMcpResources

    async def execute(self, ctx: ToolContext) -> ToolResult:
        only = self.args.get("server")
        lines = []
        for state in self.tool.manager.states():
            if state.status is not ServerStatus.READY or (only and state.name != only):
                continue
            for res in state.resources:
                about = f" - {res.description}" if getattr(res, "description", None) else ""
                lines.append(f"{state.name}  {res.uri}  {res.name}{about}")
        text = "\n".join(lines) or "No MCP server publishes resources."
        return ToolResult(llm_content=text, display=f"{len(lines)} resources")


class ReadMcpResource(_ResourceTool):
    """One resource's text, by server and URI (only URIs the server listed)."""

    name = "read_mcp_resource"
    display_name = "Read MCP resource"
    description = "Reads one resource of an MCP server by its URI (see list_mcp_resources)."
    kind = ToolKind.READ
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "The server publishing it."},
            "uri": {"type": "string", "description": "The resource's URI."},
        },
        "required": ["server", "uri"],
    }

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return _ReadInvocation(self, args)


class _ReadInvocation(ToolInvocation):
    tool: ReadMcpResource

    async def execute(self, ctx: ToolContext) -> ToolResult:
        server, uri = str(self.args["server"]), str(self.args["uri"])
        state = self.tool.manager.state(server)
        known = {str(r.uri) for r in state.resources} if state is not None else set()
        if uri not in known:
            raise ToolError(f"{server!r} publishes no resource {uri!r}; see list_mcp_resources.")
        try:
            text = await self.tool.manager.read_resource(server, uri)
        except McpCallError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(llm_content=text, display=f"{uri} ({len(text):,} characters)")


def resource_tools(manager: McpManager) -> list[Tool]:
    """The two tools, bound to this session's servers."""
    return [
        type(cls.__name__, (cls,), {"manager": manager})()
        for cls in (ListMcpResources, ReadMcpResource)
    ]
