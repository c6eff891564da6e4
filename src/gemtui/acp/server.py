"""``gemtui --acp``: serve the Agent Client Protocol on stdin/stdout until the client leaves.

stdout belongs to the protocol. Before anything else runs, the real stdout descriptor is
kept for the connection and descriptor 1 is pointed at stderr, so a stray ``print`` (or a
library's warning) can never corrupt a JSON-RPC line; logs go to the log file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from typing import cast

from acp import Agent
from acp.agent.connection import AgentSideConnection
from acp.router import MessageRouter
from acp.schema import CloseSessionRequest, LogoutRequest, ResumeSessionRequest
from acp.utils import normalize_result

from gemtui.acp.agent import GemtuiAgent
from gemtui.agent.assembly import RunOptions

__all__ = ["run_acp"]

log = logging.getLogger(__name__)

_LIMIT = 50 * 1024 * 1024
"""A line may carry a whole file or an image."""


def _claim_stdout() -> int:
    """A private descriptor for the protocol; descriptor 1 now writes to stderr."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


class _MaskingWriter(asyncio.StreamWriter):
    """Every line the agent sends, with every known secret masked.

    A key can reach a message many ways (the model repeats it, a command prints it, a
    file holds it); masking the JSON text as it leaves is the one place that catches all
    of them. The secrets are letters, digits and ``-_``, which JSON never escapes, and
    the mask has no quote or backslash, so the line stays valid JSON.
    """

    def write(self, data: bytes | bytearray | memoryview) -> None:
        from gemtui.redact import redact

        text = bytes(data).decode("utf-8", errors="surrogateescape")
        super().write(redact(text).encode("utf-8", errors="surrogateescape"))


async def _streams(out_fd: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(out_fd, "wb", buffering=0)
    )
    writer = _MaskingWriter(transport, protocol, None, loop)
    return reader, writer


def _stable_routes(conn: AgentSideConnection, agent: GemtuiAgent) -> None:
    """``session/resume``, ``session/close`` and ``logout`` as the 1.x spec has them.

    The spec made them stable (April 2026) but the Python package (0.12.x) still routes
    the first two only behind its "unstable" switch, which would open ``session/fork``
    too, and does not route ``logout`` at all; so the three are added to its router here,
    each parsed by the package's own request model.
    """
    router = getattr(getattr(conn, "_conn", None), "_handler", None)
    if not isinstance(router, MessageRouter):  # a newer package: its own routes answer
        log.warning("ACP package without the expected router: stable routes not added")
        return
    router.route_request("session/resume", ResumeSessionRequest, agent, "resume_session")
    router.route_request(
        "session/close", CloseSessionRequest, agent, "close_session", adapt_result=normalize_result
    )
    router.route_request("logout", LogoutRequest, agent, "logout", adapt_result=normalize_result)


async def _serve(options: RunOptions, out_fd: int) -> None:
    agent = GemtuiAgent(options)
    reader, writer = await _streams(out_fd)
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, lambda: main.cancel() if main else None)
    # the methods gemtui does not offer (fork, delete…) answer "method not found"
    conn = AgentSideConnection(cast(Agent, agent), writer, reader, listening=False)
    _stable_routes(conn, agent)
    try:
        await conn.listen()
    except asyncio.CancelledError:
        pass
    finally:
        await asyncio.shield(conn.close())
        await agent.close()


def run_acp(options: RunOptions) -> int:
    """Serve until stdin closes; 0 then, 1 after an unexpected error (in the log)."""
    from gemtui.logs import setup_logging

    out_fd = _claim_stdout()
    setup_logging(logging.INFO)
    try:
        asyncio.run(_serve(options, out_fd))
    except KeyboardInterrupt:
        return 0
    except Exception:
        log.exception("the ACP agent stopped on an unexpected error")
        return 1
    return 0
