"""The shadow git repository that holds a workspace's checkpoints.

It lives under gemtui's data dir, one per workspace, and is driven with ``GIT_DIR`` and
``GIT_WORK_TREE`` pointed at it and the workspace: the workspace's own ``.git`` is never
opened, and no ``.git`` is created in it. The person's git configuration, hooks,
fsmonitor and attribute filters never run: the environment is built from scratch (no
global or system config) and the repository's own ``info/attributes`` turns every
filter and line-ending conversion off, so what is stored is the bytes on disk.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ShadowError", "ShadowRepo", "shadow_dir"]

_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=true",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.filemode=true",
    "core.quotePath=false",
    "core.splitIndex=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "commit.gpgSign=false",
    "index.threads=1",
)
_ATTRIBUTES = "* -text -eol -filter -ident -diff -merge -working-tree-encoding\n"


class ShadowError(Exception):
    """git failed on the shadow repository (message says which command)."""


def shadow_dir(data_dir: Path, workspace: Path) -> Path:
    """The shadow repository of ``workspace`` (one per resolved folder path)."""
    key = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:20]
    return data_dir / "checkpoints" / key


class ShadowRepo:
    """Runs plumbing git commands on one workspace's shadow repository."""

    def __init__(self, git_dir: Path, workspace: Path) -> None:
        self.git_dir = git_dir
        self.workspace = workspace.resolve()
        self._env = self._environment()

    def _environment(self) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C",
            "LC_ALL": "C",
            "HOME": str(self.git_dir),
            "GIT_DIR": str(self.git_dir),
            "GIT_WORK_TREE": str(self.workspace),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_AUTHOR_NAME": "gemtui",
            "GIT_AUTHOR_EMAIL": "gemtui@localhost",
            "GIT_COMMITTER_NAME": "gemtui",
            "GIT_COMMITTER_EMAIL": "gemtui@localhost",
        }
        return env

    def _args(self, args: tuple[str, ...]) -> list[str]:
        cmd = ["git"]
        for item in _CONFIG:
            cmd += ["-c", item]
        ignore = self.workspace / ".geminiignore"
        cmd += ["-c", f"core.excludesFile={ignore}"]
        return [*cmd, *args]

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
        """Run ``git ARGS`` in the workspace; its stdout (raises ShadowError on failure)."""
        proc = subprocess.run(
            self._args(args),
            cwd=self.workspace,
            env=self._env,
            input=stdin,
            capture_output=True,
        )
        if check and proc.returncode != 0:
            detail = proc.stderr.decode("utf-8", "replace").strip()
            raise ShadowError(f"git {args[0]} failed: {detail}")
        return proc.stdout

    def text(self, *args: str, stdin: bytes | None = None) -> str:
        return self.run(*args, stdin=stdin).decode("utf-8", "surrogateescape")

    @property
    def exists(self) -> bool:
        return (self.git_dir / "workspace").is_file()  # written last by ``_init``

    def ensure(self) -> None:
        """Create the repository on first use (private to the person), once even when
        two calls (or two sessions) start at the same moment."""
        if self.exists:
            return
        self.git_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.git_dir / "gemtui.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            if not self.exists:
                self._init()

    def _init(self) -> None:
        env = {k: v for k, v in self._env.items() if k != "GIT_WORK_TREE"}
        proc = subprocess.run(
            ["git", "-c", "init.defaultBranch=main", "init", "-q", str(self.git_dir)],
            cwd=self.git_dir,
            env=env,
            capture_output=True,
        )
        if proc.returncode != 0:
            raise ShadowError(f"git init failed: {proc.stderr.decode('utf-8', 'replace')}")
        # git init with GIT_DIR set makes a non-bare repo: drop the sample hooks
        for hook in (self.git_dir / "hooks").glob("*"):
            hook.unlink()
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(_ATTRIBUTES)
        (self.git_dir / "workspace").write_text(str(self.workspace) + "\n")

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One writer at a time (two sessions in one folder share the index)."""
        self.ensure()
        with open(self.git_dir / "gemtui.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
