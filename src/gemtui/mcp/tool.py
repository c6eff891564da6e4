"""An MCP server's tool as a gemtui tool: validated, approved and run like a built-in."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gemtui.bus.events import Confirmation
from gemtui.mcp.manager import McpCallError
from gemtui.tools.base import Tool, ToolContext, ToolError, ToolInvocation, ToolKind, ToolResult
from gemtui.wire import Blob, Part

if TYPE_CHECKING:
    from mcp.types import CallToolResult
    from mcp.types import Tool as McpToolInfo

    from gemtui.mcp.manager import McpManager

__all__ = ["McpTool", "make_tool", "result_of"]

_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


class McpTool(Tool):
    """Base of the per-tool classes ``make_tool`` builds (name and schema are class data)."""

    remote_name: str = ""
    manager: McpManager

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return McpInvocation(self, args)


class McpInvocation(ToolInvocation):
    """One call: the approval card shows server, tool and arguments; running it asks the server."""

    tool: McpTool

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        args = json.dumps(self.args, indent=2, ensure_ascii=False)
        return Confirmation(
            kind="mcp",
            title=f"MCP tool {self.tool.remote_name} from server {self.tool.server}",
            proposed=args,
            server=self.tool.server,
        )

    async def execute(self, ctx: ToolContext) -> ToolResult:
        server = self.tool.server or ""
        try:
            result = await self.tool.manager.call(server, self.tool.remote_name, self.args)
        except McpCallError as exc:
            raise ToolError(str(exc)) from None
        return result_of(result)


def make_tool(manager: McpManager, server: str, info: McpToolInfo, name: str) -> McpTool:
    """A tool class for one server tool, offered under ``name`` (``server__tool`` on a clash)."""
    from gemtui.wire.schema import sanitize

    attrs = {
        "name": name,
        "display_name": info.title or info.name,
        "description": (info.description or "").strip() or f"{info.name} (MCP server {server})",
        "kind": ToolKind.OTHER,
        "parameters": sanitize(dict(info.input_schema or {}), "openai"),
        "server": server,
        "remote_name": info.name,
        "manager": manager,
    }
    cls = type(f"Mcp_{server}_{info.name}", (McpTool,), attrs)
    tool: McpTool = cls()
    return tool


def result_of(result: CallToolResult) -> ToolResult:
    """Text and images for the model; a server-side ``isError`` becomes the call's error."""
    texts: list[str] = []
    parts: list[Part] = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)  # type: ignore[union-attr]
        elif kind == "image" and (mime := str(getattr(block, "mime_type", ""))) in _IMAGE_TYPES:
            data = str(block.data)  # type: ignore[union-attr]
            parts.append(Part(inline_data=Blob(mime_type=mime, data=data)))
            texts.append(f"[image {mime}]")
        elif kind == "resource":
            res = block.resource  # type: ignore[union-attr]
            texts.append(getattr(res, "text", None) or f"[resource {res.uri}]")
        else:
            texts.append(f"[{kind or 'content'}]")
    if not texts and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(texts)
    if result.is_error:
        return ToolResult(error=text or "the MCP server reported an error", display=text)
    llm: str | list[Part] = [Part(text=text), *parts] if parts else text
    return ToolResult(llm_content=llm, display=text)
