"""What a trusted folder held when the person trusted it: a hash of every file that runs code.

Trust is given to what the person saw. A ``git pull``, a tool or anything else that later
adds a hook, a custom command, an MCP server or a policy rule to a trusted folder must not
run it without a new question, so the content of every workspace file a trusted session
loads is hashed (``trusted_content``) and stored beside the trust decision, in
``trusted_content.json`` next to ``trusted_folders.json`` (which keeps Gemini CLI's shape).
A folder trusted before hashes were recorded has none: it counts as changed, asked once.

The files are exactly those the loaders read only in a trusted folder: ``.gemtui/config.toml``
(settings, MCP servers, providers), ``.gemtui/policy.toml``, the hook settings
``.gemini/settings.json``, ``.gemtui/settings.json`` and Claude Code's
``.claude/settings.json`` and ``.claude/settings.local.json``, custom commands under
``.gemini/commands`` and ``.gemtui/commands`` (``*.toml`` at any depth) and Claude Code's
``.claude/commands`` (``*.md`` at any depth), agent definitions under ``.claude/agents``,
``.gemini/agents`` and ``.gemtui/agents`` (``*.md``), and skills under ``.claude/skills``,
``.gemini/skills`` and ``.agents/skills`` (``*/SKILL.md``).
A unit test keeps this list in step with the loaders.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = [
    "TRUST_CONTENT_FILE_NAME",
    "WORKSPACE_CODE_DIRS",
    "WORKSPACE_CODE_FILES",
    "content_changes",
    "read_content_records",
    "trusted_content",
]

TRUST_CONTENT_FILE_NAME = "trusted_content.json"

WORKSPACE_CODE_FILES = (
    ".gemtui/config.toml",
    ".gemtui/policy.toml",
    ".gemini/settings.json",
    ".gemtui/settings.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
)
"""Single files a trusted folder's session reads (settings, policy, hooks)."""

WORKSPACE_CODE_DIRS = (
    (".gemini/commands", "**/*.toml"),
    (".gemtui/commands", "**/*.toml"),
    (".claude/commands", "**/*.md"),
    (".claude/agents", "*.md"),
    (".gemini/agents", "*.md"),
    (".gemtui/agents", "*.md"),
    (".claude/skills", "*/SKILL.md"),
    (".gemini/skills", "*/SKILL.md"),
    (".agents/skills", "*/SKILL.md"),
)
"""Folders a trusted folder's session reads every matching file of (commands, agents)."""

_CHUNK = 1 << 16
_MAX_LISTED = 8
"""Changes named one by one; past this many, the rest are counted."""


def _files(workspace: Path) -> Iterator[Path]:
    for name in WORKSPACE_CODE_FILES:
        path = workspace / name
        if os.path.lexists(path):
            yield path
    for folder, pattern in WORKSPACE_CODE_DIRS:
        base = workspace / folder
        try:
            found = sorted(base.glob(pattern)) if base.is_dir() else []
        except OSError:
            found = [base]  # unreadable: hashed as such, so a change to it is seen
        yield from (p for p in found if not p.is_dir())


def _digest(path: Path) -> str:
    """sha256 of a regular file's bytes; a marker for anything that cannot be read as one
    (a FIFO must not block the start, so it is opened without waiting and never read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return f"special:{stat.S_IFMT(info.st_mode)}"
        digest = hashlib.sha256()
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
        return "sha256:" + digest.hexdigest()
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    finally:
        os.close(fd)


def trusted_content(workspace: Path) -> dict[str, str]:
    """Each workspace file a trusted session would load, relative path to content hash."""
    return {p.relative_to(workspace).as_posix(): _digest(p) for p in _files(workspace)}


def _name(path: str) -> str:
    """A file name as safe one-line text (a hostile repository may put newlines in one)."""
    shown = path if path.isprintable() else json.dumps(path)
    return shown if len(shown) <= 80 else shown[:79] + "…"


def content_changes(
    recorded: Mapping[str, str] | None, current: Mapping[str, str]
) -> tuple[str, ...]:
    """One line per file added, changed or removed since ``recorded`` (None: trusted before
    records were kept, so every file present is listed); empty when nothing changed."""
    if recorded is None:
        lines = ["no record of what it held when it was trusted"]
        lines += [f"present: {_name(p)}" for p in sorted(current)]
    else:
        lines = [f"new: {_name(p)}" for p in sorted(current) if p not in recorded]
        lines += [
            f"changed: {_name(p)}"
            for p in sorted(current)
            if p in recorded and recorded[p] != current[p]
        ]
        lines += [f"removed: {_name(p)}" for p in sorted(recorded) if p not in current]
    if len(lines) > _MAX_LISTED:
        lines = [*lines[:_MAX_LISTED], f"and {len(lines) - _MAX_LISTED} more"]
    return tuple(lines)


def read_content_records(path: Path) -> dict[str, dict[str, str]]:
    """Every recorded folder's hashes; a missing or broken file records nothing (each
    trusted folder is then asked about once more, never trusted blindly)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        folder: {str(k): str(v) for k, v in files.items()}
        for folder, files in data.items()
        if isinstance(files, dict)
    }
