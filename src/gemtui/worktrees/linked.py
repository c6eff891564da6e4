"""The git worktrees of a checkout, so ``gemtui agents`` in a project lists its agents'
worktrees too (``gemtui -w NAME`` runs in ``.gemini/worktrees/NAME``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gemtui.worktrees.git import run_git

__all__ = ["LinkedWorktree", "linked_worktrees"]


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
    try:
        proc = run_git(["worktree", "list", "--porcelain", "-z"], folder)
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
