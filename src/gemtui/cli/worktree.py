"""``-w/--worktree [NAME]``: the session works in its own git worktree, as in Gemini CLI.

The worktree is ``<project>/.gemini/worktrees/NAME`` on the branch ``worktree-NAME``
(Gemini CLI's path and branch names), made from the current ``HEAD``; without a NAME a
dated random one is chosen. An existing one of that name is reused, so the same command
picks the work up again. On exit it is left in place — uncommitted changes, new commits
and all — and the commands to resume or remove it are said on stderr.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from gemtui.worktrees.git import git_said, run_git

__all__ = ["Worktree", "WorktreeError", "open_worktree"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class WorktreeError(Exception):
    """Why no worktree could be used (said to the person, exit 42)."""


@dataclass(frozen=True)
class Worktree:
    """The worktree a session works in, and the checkout it belongs to."""

    name: str
    path: Path
    branch: str
    project: Path
    created: bool

    def greeting(self) -> str:
        how = "created" if self.created else "reused"
        return f"gemtui: working in the worktree {self.path} (branch {self.branch}, {how})\n"

    def farewell(self) -> str:
        """What to run next: the commands work from any folder."""
        project, path = shlex.quote(str(self.project)), shlex.quote(str(self.path))
        return (
            f"gemtui: the worktree {self.name} is left in place at {self.path} "
            f"(branch {self.branch}).\n"
            f"  resume: cd {project} && gemtui -w {shlex.quote(self.name)} --resume latest\n"
            f"  remove: git -C {project} worktree remove --force {path} && "
            f"git -C {project} branch -D {shlex.quote(self.branch)}\n"
        )


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_git(args, cwd, error=WorktreeError)


_said = git_said


def _project_root(cwd: Path) -> Path:
    """The main checkout of the repository ``cwd`` is in (from a worktree too)."""
    proc = _git(["rev-parse", "--git-common-dir"], cwd)
    if proc.returncode != 0:
        raise WorktreeError(
            f"{cwd} is not in a git repository, and --worktree makes a git worktree: run "
            "gemtui inside a repository (or `git init` and commit first)"
        )
    common = Path(proc.stdout.strip())
    common = (cwd / common).resolve() if not common.is_absolute() else common.resolve()
    if common.name != ".git":
        raise WorktreeError(f"{common} is a bare repository: there is no checkout to branch")
    return common.parent


def _random_name() -> str:
    """A dated name with a random tail (Gemini CLI's shape), unique enough to never clash."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d-%H-%M-%S")
    return f"{stamp}-{secrets.token_hex(2)}"


def open_worktree(cwd: Path, name: str | None) -> Worktree:
    """The worktree ``name`` of the repository ``cwd`` is in, made now or reused."""
    name = (name or "").strip() or _random_name()
    if not _NAME.match(name) or ".." in name or name.endswith(".lock"):
        raise WorktreeError(
            f"{name!r} cannot name a worktree: use letters, digits, '.', '_' and '-' "
            "(starting with a letter or digit); a prompt goes after -p, or before -w"
        )
    project = _project_root(cwd)
    path = project / ".gemini" / "worktrees" / name
    branch = f"worktree-{name}"
    if os.path.realpath(path) != os.fspath(path):  # a link (a repository can commit one)
        raise WorktreeError(
            f"{path} goes through a symbolic link (to {os.path.realpath(path)}): a worktree "
            "is made only inside the repository's own .gemini/worktrees folder"
        )
    if path.exists():
        top = _git(["rev-parse", "--show-toplevel"], path)
        common = _git(["rev-parse", "--git-common-dir"], path)
        if (
            top.returncode != 0
            or Path(top.stdout.strip()).resolve() != path
            or (path / common.stdout.strip()).resolve() != project / ".git"
        ):
            raise WorktreeError(
                f"{path} exists but is not a worktree of {project}: move it away first"
            )
        return Worktree(name, path, branch, project, created=False)
    _git(["worktree", "prune"], project)  # a folder removed by hand leaves its record behind
    exists = _git(["rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], project)
    add = [path.as_posix(), branch] if exists.returncode == 0 else [path.as_posix(), "-b", branch]
    proc = _git(["worktree", "add", *add], project)
    if proc.returncode != 0:
        raise WorktreeError(f"git worktree add failed: {_said(proc)}")
    return Worktree(name, path, branch, project, created=True)
