"""What the enabled extensions add to a session: MCP servers, context files, exclusions.

(Their commands join through ``user_commands``.) A server named in the person's own
settings wins over an extension's server of the same name.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gemtui.extensions import Extension, enabled_extensions

if TYPE_CHECKING:
    from gemtui.config.settings import Settings
    from gemtui.tools.registry import ToolRegistry

__all__ = ["extension_context_dirs", "load_extensions", "with_extension_servers"]


def load_extensions(workspace: Path, registry: ToolRegistry) -> list[Extension]:
    """The enabled extensions; their ``excludeTools`` (plain tool names) leave the registry."""
    found = enabled_extensions(workspace)
    for ext in found:
        for name in ext.exclude_tools:
            if "(" not in name:  # Gemini CLI's "tool(command)" form is not a tool name
                registry.unregister(name)
    return found


def with_extension_servers(settings: Settings, extensions: list[Extension]) -> Settings:
    """``settings`` with the extensions' MCP servers added (settings win a name)."""
    servers = {}
    for ext in extensions:
        servers.update(ext.mcp_servers)
    if not servers:
        return settings
    return settings.model_copy(update={"mcpServers": {**servers, **settings.mcpServers}})


def extension_context_dirs(extensions: list[Extension]) -> tuple[tuple[Path, tuple[str, ...]], ...]:
    """Each extension's folder with its context file names."""
    return tuple((ext.path, ext.context_files) for ext in extensions if ext.context_files)
