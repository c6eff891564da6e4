"""A real git repository with an agent's worktree made by `git worktree add`, for tests."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

_IDENT = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` (failing the test when git does) and return its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _IDENT
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


@dataclass(frozen=True)
class Repo:
    """The main checkout, an agent's worktree of it and the branch the worktree started from."""

    main: Path
    worktree: Path
    branch: str
    base: str


def make_repo(root: Path, name: str = "fix") -> Repo:
    """``root/main`` on ``main`` with one commit, and ``.gemini/worktrees/NAME`` on
    ``worktree-NAME`` started from it (gemtui -w's layout)."""
    main = root / "main"
    main.mkdir()
    git(main, "init", "-q", "-b", "main")
    (main / "app.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (main / "README").write_text("hello\n", encoding="utf-8")
    (main / ".gitignore").write_text(".gemini/\n", encoding="utf-8")
    git(main, "add", "-A")
    git(main, "commit", "-q", "-m", "start")
    worktree = main / ".gemini" / "worktrees" / name
    branch = f"worktree-{name}"
    git(main, "worktree", "add", "-q", "-b", branch, str(worktree), "main")
    return Repo(main, worktree, branch, "main")


def checkout_state(main: Path) -> tuple[str, str, str, bool]:
    """HEAD, `git status` and the files' contents: equal tuples mean an untouched checkout."""
    files = sorted(
        p
        for p in main.rglob("*")
        if p.is_file()
        and ".git" not in p.relative_to(main).parts[:1]
        and ".gemini" not in p.relative_to(main).parts[:1]
    )
    contents = "\n".join(f"{p}:{p.read_bytes()!r}" for p in files)
    merging = (main / ".git" / "MERGE_HEAD").exists()
    return git(main, "rev-parse", "HEAD"), git(main, "status", "--porcelain"), contents, merging
