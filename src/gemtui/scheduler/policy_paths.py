"""The paths policy looks at: normalised before rules see them, and the ones always asked about.

An ``argsPattern`` written for ``docs/`` must not match ``docs/../src/main.py``, so path
arguments are replaced by the workspace-relative path they really name (``..`` folded,
symlinks followed) before the arguments are matched as JSON.

Some places run code later because of what is written there: the run-later places of
``gemtui.tools.run_later`` (``.git/``: ``config`` sets ``core.fsmonitor``, hooks run on the
next ``git`` command; ``.gemtui/`` and ``.gemini/``: settings, hooks, MCP servers and
commands of the next session; ``.agents/``, ``.claude/``, ``.vscode/``), wherever they
appear, gemtui's config directory, and any directory git would read as a repository
itself (one holding ``HEAD``: its ``config`` runs code just as ``.git``'s). A write there
needs a person's approval in every mode but ``yolo``, whatever ``auto_edit`` or an allow
rule says. A path is judged by what it really names (``..`` folded, symlinks followed), so
``cfg/settings.json`` with ``cfg -> .gemini`` is a write into ``.gemini``.

A shell command is judged by what it shows: a word, a redirection's file or any text that
names such a place makes an allowed command ask. What a program decides at run time
(``python x.py`` writing there) is beyond policy; the sandbox (``-s``) is the wall there.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from gemtui.tools.run_later import RUN_LATER_NAMES
from gemtui.tools.shell_syntax import analyze

__all__ = [
    "PATH_ARGS",
    "PROTECTED_NAMES",
    "normalise_path_args",
    "protected_in_command",
    "protected_target",
]

PATH_ARGS = ("file_path", "dir_path", "path", "absolute_path")
"""Argument names that hold one file-system path in built-in tools."""

PROTECTED_NAMES = frozenset(name.casefold() for name in RUN_LATER_NAMES)
"""Names whose contents run code later (``RUN_LATER_NAMES``), wherever they appear."""

_PATHLIKE_KEY = re.compile(r"path|file|dir|dest|target|source|uri|location", re.IGNORECASE)
"""An MCP tool's argument names its own way (``destination``, ``paths``): any key like these
is read as a path."""

_NAMED_IN_TEXT = re.compile(
    r"(?<![\w.-])(?:" + "|".join(re.escape(n) for n in sorted(PROTECTED_NAMES)) + r")(?![\w.-])",
    re.IGNORECASE,
)
"""A protected name standing as a path component anywhere in a command's text
(``~/.gemini/x``, ``D=.gemini``), but not ``.gitignore`` or ``repo.git``."""

_GLOB_CHARS = frozenset("*?[")

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


def _path_values(args: dict[str, Any], any_key: bool) -> Iterator[str]:
    """The strings of ``args`` that name paths: the built-in names, or (``any_key``, an MCP
    tool's arguments) every path-like key's string or list of strings."""
    for key, value in args.items():
        if key not in PATH_ARGS and not (any_key and _PATHLIKE_KEY.search(key)):
            continue
        values = value if isinstance(value, list) else [value]
        yield from (v for v in values if isinstance(v, str) and "\x00" not in v)


def _protected_name(part: str) -> bool:
    folded = part.casefold()
    if folded in PROTECTED_NAMES:
        return True
    # bash's globs match a leading dot only when written: "*" never names .git
    globbed = folded.startswith(".") and bool(_GLOB_CHARS & set(folded))
    return globbed and any(fnmatchcase(n, folded) for n in PROTECTED_NAMES)


def _protected_path(value: str, base: Path, dirs: list[str], git_dirs: bool = True) -> str | None:
    real = _real(value, base)
    shown = _relative(real, base)
    if any(_protected_name(p) for p in Path(shown).parts):
        return shown
    if git_dirs and _in_git_dir(real, os.fspath(base)):
        return shown
    if any(real == d or real.startswith(d.rstrip(os.sep) + os.sep) for d in dirs):
        return real
    return None


def protected_target(
    args: dict[str, Any],
    root: Path | None,
    protected_dirs: Iterable[Path],
    *,
    any_key: bool = False,
) -> str | None:
    """The path argument that writes into a protected place, or None."""
    base = Path(os.path.realpath(root if root is not None else os.getcwd()))
    dirs = [os.path.realpath(d) for d in protected_dirs]
    for value in _path_values(args, any_key):
        if (shown := _protected_path(value, base, dirs)) is not None:
            return shown
    return None


def protected_in_command(
    command: str, root: Path | None, protected_dirs: Iterable[Path]
) -> str | None:
    """A protected place a shell command names: in a word, a redirection's file (each as
    written and as the path it resolves to from the workspace root) or anywhere in its
    text, or None. A command cannot be told to only read there, so naming is enough."""
    if (found := _NAMED_IN_TEXT.search(command)) is not None:
        return found.group(0)
    base = Path(os.path.realpath(root if root is not None else os.getcwd()))
    dirs = [os.path.realpath(d) for d in protected_dirs]
    analysis = analyze(command)
    words = [w for c in analysis.commands for w in c.words[1:]]
    for word in [*analysis.targets, *words]:
        if "\x00" in word or not word.strip():
            continue
        if any(_protected_name(p) for p in re.split(r"[/\\=]", word)):
            return word
        if (shown := _protected_path(word, base, dirs, git_dirs=False)) is not None:
            return shown
    return None
