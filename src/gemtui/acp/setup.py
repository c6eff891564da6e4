"""Building a gemtui session for an ACP ``session/new`` or ``session/load``.

The same ``trusted_run`` and ``build_session`` as headless and the TUI: the folder's
trust decides whether its own settings apply (the client is told once when they are
ignored), and the client's MCP servers join the user's own (a name the user already has
keeps the user's server).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

from gemtui.agent.assembly import Assembled, RunOptions
from gemtui.agent.fallback_attach import attach_fallback

__all__ = ["Built", "build"]

_HOW_TO_TRUST = (
    "Start gemtui with --trust-workspace (or trust the folder in the TUI) to apply them."
)


@dataclass
class Built:
    """A session assembled for the editor, and what to tell it once about the folder."""

    assembled: Assembled
    notice: str | None
    """What an untrusted folder lost, said once to the client."""


def _client_servers(servers: list[Any] | None) -> dict[str, Any]:
    from gemtui.config.settings import McpServerSettings

    out: dict[str, McpServerSettings] = {}
    for server in servers or []:
        if isinstance(server, McpServerStdio):
            out[server.name] = McpServerSettings(
                command=server.command,
                args=list(server.args),
                env={e.name: e.value for e in server.env},
            )
        elif isinstance(server, HttpMcpServer):
            headers = {h.name: h.value for h in server.headers}
            out[server.name] = McpServerSettings(httpUrl=server.url, headers=headers)
        elif isinstance(server, SseMcpServer):
            headers = {h.name: h.value for h in server.headers}
            out[server.name] = McpServerSettings(url=server.url, headers=headers)
    return out


def _roots(folders: list[str]) -> list[str]:
    """The client's additional roots: each an absolute path to an existing folder, as the
    spec asks (a comma would split it where ``--include-directories`` takes lists)."""
    from gemtui.errors import FatalInputError

    for folder in folders:
        path = Path(folder)
        if not path.is_absolute() or "," in folder or not path.is_dir():
            raise FatalInputError(
                f"additionalDirectories must be absolute paths to folders: {folder}"
            )
    return list(folders)


def build(
    opts: RunOptions,
    cwd: str,
    *,
    resume: str | None = None,
    mcp_servers: list[Any] | None = None,
    additional_directories: list[str] | None = None,
) -> Built:
    """The session for ``cwd`` with the flags of ``gemtui --acp`` (``opts``, whose own
    workspace is replaced by the client's folder); the client's additional directories
    join ``--include-directories`` as workspace roots. ``FatalError`` when it cannot be
    built (said to the client)."""
    from gemtui.agent.assembly import trusted_run
    from gemtui.errors import FatalInputError

    workspace = Path(cwd).expanduser()
    if not workspace.is_absolute() or not workspace.is_dir():
        raise FatalInputError(f"cwd must be an absolute path to a folder: {cwd}")
    extra_roots = _roots(additional_directories or [])
    run = trusted_run(
        replace(
            opts,
            workspace=workspace.resolve(),
            resume=resume,
            prompt=None,
            interactive=True,
            include_directories=(*opts.include_directories, *extra_roots),
        )
    )
    notice = run.notice(_HOW_TO_TRUST)  # never asked here: left out, and told once
    settings = run.settings()
    extra = {k: v for k, v in _client_servers(mcp_servers).items() if k not in settings.mcpServers}
    if extra:
        settings = settings.model_copy(update={"mcpServers": {**settings.mcpServers, **extra}})
    built = run.build(settings)
    attach_fallback(built.session, None)  # the client is never asked: no switch, ever
    return Built(built, notice)
