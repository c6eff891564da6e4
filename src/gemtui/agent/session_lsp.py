"""A session's language servers, read from the settings, and their tools in its registry.

Servers run only in a trusted folder. A workspace's own ``[lsp.NAME]`` entries are its
settings, read only when it is trusted; and the servers found on PATH run the project's
code too (rust-analyzer its build scripts and proc macros, gopls a module's toolchain,
pylsp the plugins a project's config names), so an untrusted folder starts none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.session_options import SessionOptions
    from gemtui.chat.chat import Chat
    from gemtui.config.settings import Settings
    from gemtui.tools.lsp.manager import LanguageServers
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.sandbox import SandboxConfig
    from gemtui.wire import FunctionDeclaration

__all__ = ["close_servers", "language_servers", "offer_again", "terminate_servers"]


def language_servers(
    settings: Settings,
    registry: ToolRegistry,
    sandbox: SandboxConfig | None,
    options: SessionOptions,
    on_ready: Callable[[], None],
) -> LanguageServers | None:
    """The servers (none started yet) and their read-only tools registered; None when the
    folder is untrusted or no server is configured or found."""
    if not options.trusted_workspace:
        return None
    from gemtui.tools.lsp.manager import LanguageServers
    from gemtui.tools.lsp.servers import server_specs
    from gemtui.tools.lsp.tools import language_server_tools

    specs = server_specs(settings.lsp, find_on_path=settings.tools.find_language_servers)
    if not specs:
        return None
    tools = settings.tools
    servers = LanguageServers(
        specs,
        sandbox=sandbox,  # under -s they run like shell commands
        wait=tools.diagnostics_wait,
        limit=tools.diagnostics_max,
        on_ready=on_ready,
    )
    for tool in language_server_tools(servers):
        if tool.name not in tools.exclude:
            registry.register(tool)
    return servers


def offer_again(
    chat: Chat, declarations: list[FunctionDeclaration], registry: ToolRegistry
) -> None:
    """A server became ready mid-prompt: its navigation tools are offered from the next
    request (declarations not of the registry, such as complete_task, stay)."""
    kept = [d for d in chat.declarations if d.name not in registry]
    chat.declarations = [*declarations, *kept]


def terminate_servers(servers: LanguageServers | None) -> None:
    """Kill every server's process group now (the TUI ends after its loop)."""
    if servers is not None:
        servers.terminate()


async def close_servers(servers: LanguageServers | None) -> None:
    """Shut the servers down, killing those that do not go in a short grace."""
    if servers is not None:
        await servers.aclose()
