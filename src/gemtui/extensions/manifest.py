"""One extension's ``gemini-extension.json``: what it brings, validated.

Gemini CLI's keys: ``name`` (letters, digits, ``-`` and ``_``), ``version``,
``mcpServers`` (the same entries as settings; ``${extensionPath}`` and ``${/}`` expanded),
``contextFileName`` (a name or a list; ``GEMINI.md`` when absent and present),
``excludeTools`` and ``settings``; a ``commands/`` folder holds TOML commands.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from msgspec import Struct, field
from pydantic import ValidationError

from gemtui.config.settings import McpServerSettings

__all__ = ["MANIFEST", "Extension", "ExtensionError", "read_extension"]

MANIFEST = "gemini-extension.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


class ExtensionError(Exception):
    """A folder that is not a usable extension (said to the person, exit 42)."""


class Extension(Struct, frozen=True):
    """An extension as installed (or linked) at ``path``."""

    name: str
    version: str
    path: Path
    mcp_servers: dict[str, McpServerSettings] = field(default_factory=dict)
    context_files: tuple[str, ...] = ()
    exclude_tools: tuple[str, ...] = ()

    @property
    def commands_dir(self) -> Path:
        return self.path / "commands"


def _expand(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("${extensionPath}", str(root)).replace("${/}", os.sep)
    if isinstance(value, list):
        return [_expand(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, root) for k, v in value.items()}
    return value


def read_extension(path: Path) -> Extension:
    """The extension in folder ``path``; raises ``ExtensionError`` saying what is wrong."""
    manifest = path / MANIFEST
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ExtensionError(f"{path}: no {MANIFEST} (not a Gemini CLI extension)") from exc
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ExtensionError(f"{manifest}: {exc}") from exc
    if not isinstance(data, dict):
        raise ExtensionError(f"{manifest}: expected a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ExtensionError(f"{manifest}: 'name' must be letters, digits, '-' or '_'")
    servers: dict[str, McpServerSettings] = {}
    raw_servers = data.get("mcpServers") or {}
    if not isinstance(raw_servers, dict):
        raise ExtensionError(f"{manifest}: 'mcpServers' must be an object")
    for server, entry in raw_servers.items():
        try:
            servers[server] = McpServerSettings.model_validate(_expand(entry, path))
        except ValidationError as exc:
            raise ExtensionError(f"{manifest}: mcpServers.{server}: {exc}") from exc
    context = data.get("contextFileName")
    names = [context] if isinstance(context, str) else list(context or [])
    if not names and (path / "GEMINI.md").is_file():
        names = ["GEMINI.md"]
    if not all(isinstance(n, str) and "/" not in n and ".." not in n for n in names):
        raise ExtensionError(f"{manifest}: 'contextFileName' must be file names in the folder")
    exclude = data.get("excludeTools") or []
    if not isinstance(exclude, list) or not all(isinstance(t, str) for t in exclude):
        raise ExtensionError(f"{manifest}: 'excludeTools' must be a list of names")
    return Extension(
        name=name,
        version=str(data.get("version") or "0.0.0"),
        path=path,
        mcp_servers=servers,
        context_files=tuple(names),
        exclude_tools=tuple(exclude),
    )
