"""The paths policy looks at: normalised before rules see them, and the ones always asked about.

An ``argsPattern`` written for ``docs/`` must not match ``docs/../src/main.py``, so path
arguments are replaced by the workspace-relative path they really name (``..`` folded,
symlinks followed) before the arguments are matched as JSON.

Some places run code the moment something is written there: ``.git/`` (``config`` sets
``core.fsmonitor``, hooks run on the next ``git`` command), ``.gemtui/`` (the project's
own settings and policy), gemtui's config directory, and any directory git would read as
a repository itself (one holding ``HEAD``: its ``config`` runs code just as ``.git``'s).
A write there needs a person's approval in every mode but ``yolo``, whatever
``auto_edit`` or an allow rule says.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["PATH_ARGS", "PROTECTED_NAMES", "normalise_path_args", "protected_target"]

PATH_ARGS = ("file_path", "dir_path", "path", "absolute_path")
"""Argument names that hold one file-system path in built-in tools."""

PROTECTED_NAMES = frozenset({".git", ".gemtui"})
"""Directory names whose contents run code or configure gemtui, wherever they appear."""

GIT_DIR_MARKER = "HEAD"
"""The file whose presence (with ``objects/`` and ``refs/``) makes a directory a repository."""


def _real(value: str, root: Path) -> str:
    raw = os.path.expanduser(value.strip()) if value.strip().startswith("~") else value.strip()
    joined = raw if os.path.isabs(raw) else os.path.join(root, raw or ".")
    try:
        return os.path.realpath(joined)
    except (OSError, ValueError):
        return os.path.normpath(joined)


def _relative(real: str, root: Path) -> str:
    base = os.fspath(root)
    if real == base:
        return "."
    if real.startswith(base.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(real, base)).as_posix()
    return real


def normalise_path_args(args: dict[str, Any], root: Path | None) -> dict[str, Any]:
    """``args`` with each path argument replaced by the workspace-relative path it names."""
    if not any(isinstance(args.get(k), str) for k in PATH_ARGS):
        return args
    base = Path(os.path.realpath(root if root is not None else os.getcwd()))
    out = dict(args)
    for key in PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str) and "\x00" not in value:
            out[key] = _relative(_real(value, base), base)
    return out


def _in_git_dir(real: str, base: str) -> bool:
    """Whether a write lands in a directory git would take as a repository.

    Git treats any directory holding ``HEAD``, ``objects/`` and ``refs/`` as a (bare)
    repository, so ``sub/config`` with ``core.fsmonitor`` plus ``sub/HEAD`` makes ``git
    status`` run in ``sub`` execute it, no ``.git`` in sight. Writing a ``HEAD`` file, or
    anything below a directory that holds one (up to the workspace root), is protected.
    """
    path = Path(real)
    if path.name.casefold() == GIT_DIR_MARKER.casefold():
        return True
    inside = real.startswith(base.rstrip(os.sep) + os.sep)
    for parent in path.parents:
        if os.path.lexists(parent / GIT_DIR_MARKER):
            return True
        if not inside or os.fspath(parent) == base:
            return False
    return False


def protected_target(
    args: dict[str, Any], root: Path | None, protected_dirs: Iterable[Path]
) -> str | None:
    """The path argument that writes into a protected place, or None."""
    base = Path(os.path.realpath(root if root is not None else os.getcwd()))
    dirs = [os.path.realpath(d) for d in protected_dirs]
    for key in PATH_ARGS:
        value = args.get(key)
        if not isinstance(value, str) or "\x00" in value:
            continue
        real = _real(value, base)
        shown = _relative(real, base)
        parts = {p.casefold() for p in Path(shown).parts}
        if parts & PROTECTED_NAMES or _in_git_dir(real, os.fspath(base)):
            return shown
        if any(real == d or real.startswith(d.rstrip(os.sep) + os.sep) for d in dirs):
            return real
    return None
