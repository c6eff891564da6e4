"""A stdio MCP server (the mcp SDK's ``MCPServer``) whose tools answer with megabytes:
``numbers`` as text content, ``numbers_resource`` as an embedded text resource.

Both give ``count`` ten-character lines (``000000000\\n``, ``000000001\\n``…), so the
character at offset ``10 * k`` starts line ``k``, then a last line naming ``secret``
(the tests pass the API key, which must come out masked).
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import EmbeddedResource, TextResourceContents

server = MCPServer("big")


def numbered(count: int, secret: str) -> str:
    """The text both tools answer with."""
    return "".join(f"{i:09d}\n" for i in range(count)) + f"key={secret}\n"


@server.tool(description="Numbered lines as text")
def numbers(count: int, secret: str = "") -> str:
    return numbered(count, secret)


@server.tool(description="Numbered lines as an embedded resource")
def numbers_resource(count: int, secret: str = "") -> EmbeddedResource:
    contents = TextResourceContents(
        uri="numbers://all", mime_type="text/plain", text=numbered(count, secret)
    )
    return EmbeddedResource(type="resource", resource=contents)


if __name__ == "__main__":
    server.run("stdio")
    sys.exit(0)
