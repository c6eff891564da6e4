"""Writing one root's tree from its shadow index: what a checkpoint saves of the folder,
and what it could not save (a file over ``[checkpoints] max_file_size``, a file it may
not read). A rewind leaves what was not saved alone, so both lists are kept."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field

from gemtui.checkpoints.shadow import ShadowRepo

__all__ = ["Snapshot", "take_snapshot"]


@dataclass(frozen=True)
class Snapshot:
    """A tree written from the shadow index, and the files left out of it."""

    tree: str
    skipped: list[str] = field(default_factory=list)
    """Files over the size cap."""
    unreadable: list[str] = field(default_factory=list)
    """Files (or folders) gemtui may not read."""


def take_snapshot(repo: ShadowRepo, max_file_size: int, exclude: Sequence[str] = ()) -> Snapshot:
    """Bring ``repo``'s index up to its work tree and write its tree (lock held).

    ``exclude`` names folders inside this root that are not its to keep (the workspace
    when this is a root around it, gemtui's own folders).
    """
    spec = ["--", ".", *(f":(exclude,literal){p}" for p in exclude)] if exclude else []
    out = repo.run(
        "ls-files", "-z", "--modified", "--others", "--deleted", "--exclude-standard", *spec
    )
    paths = sorted({p for p in out.decode("utf-8", "surrogateescape").split("\0") if p})
    update: list[str] = []
    remove: list[str] = []
    skipped: list[str] = []
    unreadable: list[str] = []
    real_dirs: dict[str, bool] = {}
    root = repo.workspace
    for path in paths:
        if path.endswith("/"):  # a nested repository: not ours to store
            continue
        try:
            if not _real_parent(root, path, real_dirs):
                raise FileNotFoundError(path)  # under a link now: gone from here
            st = os.lstat(root / path)
        except (FileNotFoundError, NotADirectoryError):
            remove.append(path)
            continue
        except PermissionError:
            unreadable.append(path)
            remove.append(path)
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size > max_file_size:
            skipped.append(path)
            remove.append(path)
        elif stat.S_ISREG(st.st_mode) and not _readable(root / path):
            unreadable.append(path)
            remove.append(path)
        elif stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            update.append(path)
        else:  # a folder (or a pipe) where a file was: the file is no longer here
            remove.append(path)
    if remove:
        data = "".join(f"{p}\0" for p in remove).encode("utf-8", "surrogateescape")
        repo.run("update-index", "-z", "--force-remove", "--stdin", stdin=data)
    if update:
        data = "".join(f"{p}\0" for p in update).encode("utf-8", "surrogateescape")
        repo.run("update-index", "-z", "--add", "--remove", "--replace", "--stdin", stdin=data)
    tree = repo.text("write-tree").strip()
    return Snapshot(tree, skipped, unreadable)


def _readable(path: os.PathLike[str]) -> bool:
    """Whether git will be able to read the file (else the whole update would fail)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    except PermissionError:
        return False
    except OSError:
        return True  # gone or changed since: git says what it finds
    os.close(fd)
    return True


def _real_parent(root: os.PathLike[str], path: str, known: dict[str, bool]) -> bool:
    """Whether every folder above ``path`` is a real folder (not a link)."""
    parent = path.rpartition("/")[0]
    if not parent:
        return True
    if parent not in known:
        full = os.path.join(root, parent)
        st = os.lstat(full) if os.path.lexists(full) else None
        ok = st is not None and stat.S_ISDIR(st.st_mode)
        known[parent] = ok and _real_parent(root, parent, known)
    return known[parent]
