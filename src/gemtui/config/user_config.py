"""Remembering the person's choices (provider, theme) in the user ``config.toml``.

The file is tiny and read by ``gemtui.config.load_settings``; we rewrite it by hand with
the existing tables kept, so no TOML writer dependency is needed.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["dumps_toml", "save_choice"]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def dumps_toml(data: dict[str, Any], prefix: str = "") -> str:
    """A small TOML writer for settings: scalars first, then one table per mapping."""
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    for key, value in data.items():
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            tables.extend((f"{prefix}{_key(key)}.{_key(k)}", v) for k, v in value.items())
        elif isinstance(value, dict):
            tables.append((f"{prefix}{_key(key)}", value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    out = "\n".join(lines)
    for name, table in tables:
        body = dumps_toml(table, prefix=f"{name}.")
        out += ("\n\n" if out else "") + f"[{name}]" + ("\n" + body if body else "")
    return out


def save_choice(section: str, key: str, value: Any, path: Path | None = None) -> Path:
    """Set ``[section] key = value`` in the user config file, keeping everything else."""
    from gemtui.config.paths import user_config_file

    target = path or user_config_file()
    data: dict[str, Any] = {}
    if target.exists():
        data = tomllib.loads(target.read_text(encoding="utf-8"))
    data.setdefault(section, {})[key] = value
    target.parent.mkdir(parents=True, exist_ok=True)
    text = dumps_toml(data) + "\n"
    tomllib.loads(text)  # never write a file the next start could not read
    tmp = target.with_suffix(".toml.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)  # atomic: a crash leaves the old file or the new one
    return target
