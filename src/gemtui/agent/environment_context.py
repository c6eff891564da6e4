"""Where the agent is, said once at the start of a session: the date, the system, the
shell, the workspace and its top-level entries, and the git branch and status.

It joins the system instruction (after the core prompt), so it is in the first request
and stays the same for the whole session (a stable prefix the provider can cache).

The workspace is untrusted: an entry's name may hold newlines or markup meant to pass for
instructions, so names are shown escaped and cut; and git runs with the repository's
command-running settings (fsmonitor, hooks, filter drivers, pagers) and every transport
turned off, so a hostile ``.git/config`` cannot run anything when gemtui merely looks at
the folder.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from pathlib import Path

from gemtui.tools.workspace import Workspace

__all__ = ["GIT_TIMEOUT", "environment_context", "git_summary", "top_level_listing"]

COMPACT_LISTING = 15
"""Top-level entries shown to a small model (its window is precious); others get 50."""
GIT_TIMEOUT = 2.0
"""Seconds each git command may take before the status is left out."""
MAX_NAME = 80
_SKIP = frozenset({".git"})


def _shown(name: str) -> str:
    """A file name on one line: control characters escaped, long names cut."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in name)
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 1] + "…"


def top_level_listing(workspace: Workspace, max_entries: int) -> list[str]:
    """The workspace root's visible entries (folders first, with a slash), at most
    ``max_entries`` of them and a "… N more" line."""
    root = workspace.root
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name.lower())
    except OSError:
        return []
    dirs: list[str] = []
    files: list[str] = []
    for entry in entries:
        if entry.name in _SKIP or not workspace.visible(entry.path):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        (dirs if is_dir else files).append(_shown(entry.name) + ("/" if is_dir else ""))
    names = dirs + files
    if len(names) > max_entries:
        return [*names[:max_entries], f"… {len(names) - max_entries} more"]
    return names


_ALWAYS = (
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    # no transport at all: a repository made a partial clone with a missing object
    # would otherwise fetch it during status, through its own core.sshCommand
    ("protocol.allow", "never"),
)


def _git_env(config: list[tuple[str, str]]) -> dict[str, str]:
    """git's environment: no inherited ``GIT_*``, no locks or prompts, no lazy fetch, and
    ``config`` given as separate keys and values (``GIT_CONFIG_KEY_n``): a ``-c`` option
    splits at the first ``=``, so a driver named ``x=y`` would escape an override."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_NO_LAZY_FETCH="1")
    env["LC_ALL"] = "C"
    settings = [*_ALWAYS, *config]
    env["GIT_CONFIG_COUNT"] = str(len(settings))
    for i, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def _git(root: Path, *args: str, config: list[tuple[str, str]] | None = None) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "--no-pager", *args],
            cwd=root,
            env=_git_env(config or []),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", errors="replace")


def _filter_overrides(root: Path) -> list[tuple[str, str]]:
    """Settings that switch off each filter driver the repository configures (hooks,
    fsmonitor and every transport are off in every git call here)."""
    found = _git(root, "config", "--null", "--name-only", "--get-regexp", r"^filter\.")
    drivers = {name.rsplit(".", 1)[0] for name in (found or "").split("\0") if name.count(".") >= 2}
    out: list[tuple[str, str]] = []
    for driver in sorted(drivers):
        out += [(f"{driver}.{key}", "") for key in ("clean", "smudge", "process")]
        out.append((f"{driver}.required", "false"))
    return out


def git_summary(root: Path) -> str | None:
    """ "branch main, 2 changed, 1 untracked" for a git work tree; None otherwise."""
    base = _git(root, "rev-parse", "--is-inside-work-tree")
    if base is None or base.strip() != "true":
        return None
    status = _git(
        root,
        "status",
        "--porcelain=v1",
        "--branch",
        "--ignore-submodules=all",
        "-z",
        config=_filter_overrides(root),
    )
    if status is None:
        return None
    records = [r for r in status.split("\0") if r]
    head = records[0][3:] if records and records[0].startswith("## ") else ""
    branch = head.split("...", 1)[0]
    for prefix in ("No commits yet on ", "Initial commit on "):
        branch = branch.removeprefix(prefix)
    changed = untracked = 0
    skip_next = False
    for record in records[1:]:
        if skip_next:  # the source path of a rename
            skip_next = False
            continue
        if record.startswith("??"):
            untracked += 1
        else:
            changed += 1
            skip_next = record[:1] in ("R", "C")
    parts = [f"branch {_shown(branch) or '(detached)'}"]
    if "[" in head:
        parts.append(_shown(head[head.index("[") + 1 : head.rindex("]")]))
    if changed or untracked:
        parts.append(f"{changed} changed, {untracked} untracked")
    else:
        parts.append("clean")
    return ", ".join(parts)


def _shell() -> str:
    return Path(os.environ.get("SHELL") or os.environ.get("COMSPEC") or "/bin/sh").name


def environment_context(
    workspace: Workspace, *, max_entries: int = 50, today: dt.date | None = None
) -> str:
    """The environment section of the system instruction."""
    day = today or dt.date.today()
    lines = [
        "# Environment",
        f"- Today's date: {day:%A, %d %B %Y}",
        f"- Operating system: {platform.system()} {platform.release()}".rstrip(),
        f"- Shell: {_shell()} (commands run with bash -c)",
        f"- Workspace root: {workspace.root}",
    ]
    for extra in workspace.roots[1:]:
        lines.append(f"- Also in the workspace: {extra}")
    git = git_summary(workspace.root)
    if git is not None:
        lines.append(f"- Git: {git}")
    listing = top_level_listing(workspace, max_entries)
    if listing:
        lines.append("- Top-level entries of the workspace (ignored files left out):")
        lines.extend(f"  {name}" for name in listing)
    else:
        lines.append("- The workspace is empty.")
    return "\n".join(lines)
