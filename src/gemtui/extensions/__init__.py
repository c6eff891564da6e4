"""Extensions in Gemini CLI's ``gemini-extension.json`` format.

An extension is a folder with a manifest: MCP servers, context files, custom commands
(``commands/``) and tools to exclude. ``manifest`` reads one; ``store`` installs, links,
enables and removes them under gemtui's data dir. A session takes the enabled ones
(``enabled_extensions``). Nothing here imports a view.
"""

from __future__ import annotations

from gemtui.extensions.manifest import Extension, ExtensionError, read_extension
from gemtui.extensions.store import ExtensionStore, enabled_extensions

__all__ = [
    "Extension",
    "ExtensionError",
    "ExtensionStore",
    "enabled_extensions",
    "read_extension",
]
