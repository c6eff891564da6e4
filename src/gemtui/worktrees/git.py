"""git as the worktree features run it: in the folder given, never sent elsewhere by the
environment, never waiting on a terminal, and saying why when git itself is missing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["GIT_REDIRECTS", "git_said", "run_git"]

GIT_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
"""Variables that would point git somewhere else than the folder it is run in."""


def run_git(
    args: list[str],
    cwd: Path,
    *,
    env: dict[str, str] | None = None,
    error: type[Exception] = OSError,
) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``cwd`` (``env`` added to a cleaned environment); ``error`` is
    raised, with how to mend it, when git cannot be run at all."""
    clean = {k: v for k, v in os.environ.items() if k not in GIT_REDIRECTS}
    clean.update(env or {})
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=clean,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as exc:
        raise error(f"git cannot be run ({exc.strerror or exc}); install git") from exc


def git_said(proc: subprocess.CompletedProcess[str]) -> str:
    """git's last line of complaint (its ``fatal: …``)."""
    lines = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
    return lines[-1] if lines else f"git exited {proc.returncode}"
