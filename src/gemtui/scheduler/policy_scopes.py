"""How far "allow for this session / always" reaches for an edit: this file, this folder,
or every call of the tool.

Allowing ``write_file`` once for ``src/app.py`` should not let the model rewrite
``.github/workflows`` unasked, so an edit offers narrower rules: an ``argsPattern`` on
its path argument. The pattern is matched against the arguments after ``decide`` has
made every path workspace-relative and symlink-free (``policy_paths``), so a relative
path has no ``..`` in it and anything outside the workspace is absolute: a folder
pattern cannot be escaped by ``src/../../x`` or a link.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from gemtui.scheduler.policy_paths import PATH_ARGS, normalise_path_args
from gemtui.scheduler.policy_rules import PolicyDecision, PolicyRule
from gemtui.tools.base import Tool, ToolKind

__all__ = ["SCOPES", "RememberScope", "scope_label", "scope_rule", "scopes_for"]

RememberScope = Literal["file", "folder", "every"]
SCOPES: tuple[RememberScope, ...] = ("file", "folder", "every")
"""Narrowest first: the first offered is what a plain "allow for session" remembers."""

_BEFORE = r'(?:\{|,)"'
_AFTER = r'"(?:,|\})'


def _path_arg(tool: Tool, args: dict[str, Any]) -> tuple[str, str] | None:
    """The (name, value) of the path an edit writes, when it names exactly one."""
    if tool.kind is not ToolKind.EDIT or tool.server is not None:
        return None
    for key in PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str) and value.strip() and "\x00" not in value:
            return key, value
    return None


def _json_text(value: str) -> str:
    """``value`` as it appears between the quotes of the JSON the pattern searches."""
    return json.dumps(value, ensure_ascii=False)[1:-1]


def _relative(tool: Tool, args: dict[str, Any], root: Path | None) -> tuple[str, str] | None:
    named = _path_arg(tool, args)
    if named is None:
        return None
    key = named[0]
    path = normalise_path_args({key: named[1]}, root)[key]
    if os.path.isabs(path) or path == ".":
        return None  # outside the workspace (or the root itself): no narrower rule
    return key, path


def scopes_for(tool: Tool, args: dict[str, Any], root: Path | None) -> tuple[RememberScope, ...]:
    """The scopes an approval may remember for this call; () when only "every" applies."""
    return SCOPES if _relative(tool, args, root) is not None else ()


def scope_rule(
    tool: Tool, args: dict[str, Any], root: Path | None, scope: RememberScope
) -> PolicyRule | None:
    """The allow rule for ``scope`` (None for "every", or a call without a path)."""
    named = _relative(tool, args, root) if scope != "every" else None
    if named is None:
        return None
    key, path = named
    name = re.escape(_json_text(key))
    if scope == "file":
        pattern = f'{_BEFORE}{name}":"{re.escape(_json_text(path))}{_AFTER}'
    else:
        folder = os.path.dirname(path)
        start = re.escape(_json_text(folder + "/")) if folder else r"[^\"\\/]"
        pattern = f'{_BEFORE}{name}":"{start}[^"\\\\]*{_AFTER}'
    return PolicyRule(PolicyDecision.ALLOW, tool_name=tool.name, args_pattern=pattern)


def scope_label(tool: Tool, args: dict[str, Any], root: Path | None, scope: RememberScope) -> str:
    """What a rule of ``scope`` covers, in a preview's words."""
    named = _relative(tool, args, root) if scope != "every" else None
    if named is None:
        return f"every {tool.name} call"
    path = named[1]
    if scope == "file":
        return f"{tool.name} of {path}"
    folder = os.path.dirname(path)
    return f"{tool.name} in {folder}/" if folder else f"{tool.name} anywhere in the workspace"
