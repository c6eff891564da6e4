"""A real ``MCPServer`` (the mcp SDK's) over streamable HTTP on 127.0.0.1, for tests."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any


@asynccontextmanager
async def serving(server: Any) -> AsyncIterator[str]:
    """Serve ``server`` until the block ends; yields its URL, listening before it returns."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    config = uvicorn.Config(server.streamable_http_app(), log_level="error", lifespan="on")
    web = uvicorn.Server(config)
    task = asyncio.create_task(web.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        web.should_exit = True
        await task
        sock.close()
