"""The git worktrees of a checkout, so ``gemtui agents`` in a project lists its agents'
worktrees too (``gemtui -w NAME`` runs in ``.gemini/worktrees/NAME``)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LinkedWorktree", "linked_worktrees"]

_GIT_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")


@dataclass(frozen=True)
class LinkedWorktree:
    """A worktree made with ``git worktree add`` and the branch it has checked out."""

    path: Path
    branch: str | None


def linked_worktrees(folder: Path) -> list[LinkedWorktree]:
    """The other worktrees of the repository whose main checkout is ``folder``.

    Empty when ``folder`` is not the top of a main checkout (a plain folder, a
    subfolder, a worktree itself) or git cannot be run: only the project lists its
    agents' worktrees, never a folder that merely sits in a repository.
    """
    env = {k: v for k, v in os.environ.items() if k not in _GIT_REDIRECTS}
    try:
        proc = subprocess.run(
            ["git", "worktree", "list", "--porcelain", "-z"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError:
        return []
    if proc.returncode != 0:
        return []
    found: list[LinkedWorktree] = []
    path: Path | None = None
    branch: str | None = None
    for field in [*proc.stdout.split("\0"), ""]:
        if field.startswith("worktree "):
            path, branch = Path(field[len("worktree ") :]).resolve(), None
        elif field.startswith("branch "):
            branch = field[len("branch ") :].removeprefix("refs/heads/")
        elif not field and path is not None:  # an empty field ends a record
            found.append(LinkedWorktree(path, branch))
            path = None
    if not found or found[0].path != folder.resolve():
        return []  # the first record is the main checkout: ``folder`` must be it
    return found[1:]
