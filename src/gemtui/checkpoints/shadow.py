"""The shadow git repository that holds a workspace's checkpoints.

It lives under gemtui's data dir, one per workspace, and is driven with ``GIT_DIR`` and
``GIT_WORK_TREE`` pointed at it and the workspace: the workspace's own ``.git`` is never
opened, and no ``.git`` is created in it. Every further root (``--include-directories``)
is a work tree of the same repository with an index of its own (``roots/KEY.index``), so
one lock, one object store and one list of checkpoints cover every root.

The person's git configuration, hooks, fsmonitor and attribute filters never run: the
environment is built from scratch (no global or system config) and the repository's own
``info/attributes`` turns every filter and line-ending conversion off, so what is stored
is the bytes on disk.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ShadowError", "ShadowRepo", "path_key", "shadow_dir"]

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


def path_key(path: Path) -> str:
    """A short stable name for a resolved folder path."""
    return hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:20]


def shadow_dir(data_dir: Path, workspace: Path) -> Path:
    """The shadow repository of ``workspace`` (one per resolved folder path)."""
    return data_dir / "checkpoints" / path_key(workspace)


class ShadowRepo:
    """Runs plumbing git commands on one workspace's shadow repository."""

    def __init__(self, git_dir: Path, workspace: Path, *, main: ShadowRepo | None = None) -> None:
        self.git_dir = git_dir
        self.workspace = workspace.resolve()
        self.main = main
        """The workspace's own repo when this one is a further root's work tree."""
        self._env = self._environment()

    def for_root(self, root: Path) -> ShadowRepo:
        """The same repository with ``root`` as its work tree and an index of its own."""
        other = ShadowRepo(self.git_dir, root, main=self)
        other.ensure()
        return other

    def _environment(self) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C",
            "LC_ALL": "C",
            "HOME": str(self.git_dir),
            "GIT_DIR": str(self.git_dir),
            "GIT_WORK_TREE": str(self.workspace),
            "GIT_INDEX_FILE": str(self.index),
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

    def blob_head(self, blob: str, limit: int) -> tuple[bytes, int]:
        """At most ``limit`` bytes of a stored blob, and its whole size (a preview never
        reads a large blob whole)."""
        size = int(self.text("cat-file", "-s", blob).strip())
        if size <= limit:
            return self.run("cat-file", "blob", blob), size
        proc = subprocess.Popen(
            self._args(("cat-file", "blob", blob)),
            cwd=self.workspace,
            env=self._env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert proc.stdout is not None
            data = proc.stdout.read(limit)
        finally:
            proc.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        return data, size

    def text(self, *args: str, stdin: bytes | None = None) -> str:
        return self.run(*args, stdin=stdin).decode("utf-8", "surrogateescape")

    @property
    def index(self) -> Path:
        """The shadow index of this work tree (git's stat cache for it)."""
        if self.main is None:
            return self.git_dir / "index"
        return self.git_dir / "roots" / f"{path_key(self.workspace)}.index"

    @property
    def exists(self) -> bool:
        return (self.git_dir / "workspace").is_file()  # written last by ``_init``

    def ensure(self) -> None:
        """Create the repository on first use (private to the person), once even when
        two calls (or two sessions) start at the same moment."""
        if self.main is not None:
            self.main.ensure()
            self.index.parent.mkdir(exist_ok=True, mode=0o700)
            return
        if self.exists:
            return
        self.git_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.git_dir / "gemtui.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            if not self.exists:
                self._init()

    def _init(self) -> None:
        env = {k: v for k, v in self._env.items() if k not in ("GIT_WORK_TREE", "GIT_INDEX_FILE")}
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
