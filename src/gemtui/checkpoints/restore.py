"""Putting a workspace back to a checkpoint's tree, without ever leaving the workspace.

Every path is walked from the workspace's own directory descriptor one component at a
time with ``O_NOFOLLOW``: a symlink (or file) standing where a directory should be is
replaced, never followed, so a link planted since the checkpoint cannot redirect a write
outside the folder. A path with a ``.git`` component or ``..`` is refused outright.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from gemtui.checkpoints.shadow import ShadowRepo

__all__ = ["Change", "RestoreReport", "apply_changes", "plan_changes"]


@dataclass(frozen=True)
class Change:
    """One path the rewind touches: ``status`` is A (restored), M (changed back), D
    (removed: created since)."""

    path: str
    status: str
    mode: str
    blob: str


@dataclass
class RestoreReport:
    """What a restore did, path by path (failed: refused or not writable)."""

    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def _safe_parts(path: str) -> list[str] | None:
    parts = path.split("/")
    if not parts or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        return None
    return parts


def plan_changes(repo: ShadowRepo, current: str, target: str) -> list[Change]:
    """What turns tree ``current`` into tree ``target`` (removals first)."""
    if current == target:
        return []
    out = repo.run("diff-tree", "-r", "-z", "--no-renames", current, target)
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes: list[Change] = []
    for i in range(0, len(fields) - 1, 2):
        meta, path = fields[i], fields[i + 1]
        _old_mode, new_mode, _old, new, status = meta.lstrip(":").split(" ")
        if status == "D":
            changes.append(Change(path, "D", "", ""))
        else:
            changes.append(Change(path, "A" if status == "A" else "M", new_mode, new))
    changes.sort(key=lambda c: (c.status != "D", c.path))
    return changes


def _walk(root_fd: int, parts: list[str], *, create: bool) -> int | None:
    """A descriptor of the real directory holding ``parts[-1]``; None if there is none."""
    fd = os.dup(root_fd)
    try:
        for name in parts[:-1]:
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is not None and not stat.S_ISDIR(st.st_mode):
                if not create:
                    os.close(fd)
                    return None
                os.unlink(name, dir_fd=fd)  # a link or file where a folder belongs
                st = None
            if st is None:
                if not create:
                    os.close(fd)
                    return None
                os.mkdir(name, 0o755, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def _clear(fd: int, name: str) -> None:
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        os.rmdir(name, dir_fd=fd)  # emptied by the removals before; else this fails
    else:
        os.unlink(name, dir_fd=fd)


def _read_blobs(repo: ShadowRepo, blobs: list[str]) -> dict[str, bytes]:
    if not blobs:
        return {}
    out = repo.run("cat-file", "--batch", stdin="".join(f"{b}\n" for b in blobs).encode())
    contents: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        sha, _kind, size = out[pos:end].decode().split(" ")
        start = end + 1
        contents[sha] = out[start : start + int(size)]
        pos = start + int(size) + 1
    return contents


def apply_changes(repo: ShadowRepo, changes: list[Change]) -> RestoreReport:
    """Make the workspace match the target tree for every changed path."""
    report = RestoreReport()
    blobs = _read_blobs(repo, sorted({c.blob for c in changes if c.blob and c.mode != "160000"}))
    root_fd = os.open(repo.workspace, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for change in changes:
            parts = _safe_parts(change.path)
            if parts is None or change.mode == "160000":
                report.failed.append(change.path)
                continue
            try:
                _apply_one(root_fd, parts, change, blobs)
            except OSError:
                report.failed.append(change.path)
                continue
            (report.removed if change.status == "D" else report.restored).append(change.path)
    finally:
        os.close(root_fd)
    return report


def _apply_one(root_fd: int, parts: list[str], change: Change, blobs: dict[str, bytes]) -> None:
    fd = _walk(root_fd, parts, create=change.status != "D")
    if fd is None:
        return
    name = parts[-1]
    try:
        _clear(fd, name)
        if change.status == "D":
            return
        data = blobs[change.blob]
        if change.mode == "120000":
            os.symlink(os.fsdecode(data), name, dir_fd=fd)
            return
        mode = 0o755 if change.mode == "100755" else 0o644
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        out = os.open(name, flags, mode, dir_fd=fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
            os.fchmod(out, mode)
        finally:
            os.close(out)
    finally:
        os.close(fd)
