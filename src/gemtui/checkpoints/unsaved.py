"""What a rewind must leave alone: every path whose content now, or whose content at the
checkpoint, was not saved (over ``[checkpoints] max_file_size``, unreadable, ignored, a
pipe, a folder holding such a file). Writing over it would destroy something neither
the checkpoint nor the rewind's own undo checkpoint can bring back."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gemtui.checkpoints.book import RootState
from gemtui.checkpoints.restore import Change
from gemtui.checkpoints.shadow import ShadowRepo
from gemtui.checkpoints.snapshot import Snapshot

__all__ = ["LeftAlone", "human_size", "ignored_in", "split_unsaved"]

CAP = "[checkpoints] max_file_size"


@dataclass(frozen=True)
class LeftAlone:
    """A path the rewind does not touch, and why (said to the person)."""

    path: str
    reason: str

    def line(self) -> str:
        return f"left as is: {self.path} ({self.reason})"


def human_size(size: int) -> str:
    """A size the way the person reads it (decimal units, like ``ls -h --si``)."""
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 1_000:
        return f"{size / 1_000:.1f} KB"
    return f"{size} bytes"


def ignored_in(repo: ShadowRepo, tree: str, paths: Iterable[str]) -> set[str]:
    """Which of ``paths`` the ignore files of ``tree`` ignore: a file ignored at a
    checkpoint was never saved in it, so its absence there says nothing.

    The tree's ``.gitignore`` files (and its root ``.geminiignore``, as the snapshot reads
    it) are written to a scratch folder and git itself answers (``check-ignore
    --no-index``), so the rules are git's own.
    """
    wanted = sorted(set(paths))
    if not wanted:
        return set()
    out = repo.run("ls-tree", "-r", "-z", tree)
    rules: list[tuple[str, str]] = []
    for entry in out.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = entry.partition("\t")
        if path.rpartition("/")[2] == ".gitignore" or path == ".geminiignore":
            rules.append((path, meta.split(" ")[2]))
    if not rules:
        return set()
    with tempfile.TemporaryDirectory(prefix="gemtui-ignore-") as scratch:
        for path, blob in rules:
            target = Path(scratch, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(repo.run("cat-file", "blob", blob))
        probe = ShadowRepo(repo.git_dir, Path(scratch), main=repo.main or repo)
        data = "".join(f"{p}\0" for p in wanted).encode("utf-8", "surrogateescape")
        found = probe.run("check-ignore", "--no-index", "-z", "--stdin", stdin=data, check=False)
    return {p for p in found.decode("utf-8", "surrogateescape").split("\0") if p}


def split_unsaved(
    root: Path,
    changes: list[Change],
    now: Snapshot,
    target: RootState,
    ignored_then: Iterable[str] = (),
) -> tuple[list[Change], list[LeftAlone]]:
    """The changes that are safe to make, and every path left as it is (relative)."""
    unsaved_now = {p: _over_cap(root, p) for p in now.skipped}
    unsaved_now.update({p: "unreadable, so it could not be saved first" for p in now.unreadable})
    unsaved_then = {p: f"over {CAP} at the checkpoint, so not saved" for p in target.skipped}
    unsaved_then.update(
        {p: "unreadable at the checkpoint, so not saved" for p in target.unreadable}
    )
    unsaved_then.update({p: "ignored at the checkpoint, so not saved" for p in ignored_then})
    left = dict(unsaved_now)
    for path in (*target.skipped, *target.unreadable):
        left.setdefault(path, unsaved_then[path])
    removing = {c.path for c in changes if c.status == "D"}
    safe: list[Change] = []
    for change in changes:
        blocked: tuple[str, str] | None = None
        if change.status != "D":
            blocked = _blocker(root, change, removing, unsaved_now)
        elif change.path in unsaved_then:  # saved now; kept out then: not ours to remove
            blocked = change.path, unsaved_then[change.path]
        if blocked is None:
            safe.append(change)
            continue
        path, reason = blocked
        left.setdefault(path, reason)
        if path != change.path:
            left.setdefault(change.path, f"{path} is in its way and was not saved")
    return safe, [LeftAlone(p, left[p]) for p in sorted(left)]


def _over_cap(root: Path, path: str) -> str:
    try:
        size = os.lstat(root / path).st_size
    except OSError:
        return f"over {CAP}, so it could not be saved first"
    return f"{human_size(size)}, over {CAP}"


def _blocker(
    root: Path, change: Change, removing: set[str], unsaved: dict[str, str]
) -> tuple[str, str] | None:
    """The first thing on the way to writing ``change`` that is not saved (walked one
    component at a time without following links), or None when nothing unsaved is hit."""
    parts = change.path.split("/")
    for i in range(1, len(parts) + 1):
        here = "/".join(parts[:i])
        last = i == len(parts)
        if here in removing:
            return None  # saved, removed first: what is below it is then created
        try:
            st = os.lstat(root / here)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError:
            return here, "it could not be read, so it could not be saved first"
        if here in unsaved:
            return here, unsaved[here]
        if not last:
            if stat.S_ISDIR(st.st_mode):
                continue
            return here, "not saved (ignored or not a file), and a folder goes there"
        if change.status == "M":
            return None  # in both trees: saved
        if stat.S_ISDIR(st.st_mode):
            inside = [p for p in unsaved if p.startswith(here + "/")]
            if inside:
                return here, f"a folder now, holding {inside[0]}, which was not saved"
            return None  # its files are saved and removed first; an empty folder goes
        return here, "not saved (ignored or not a file), so it is not replaced"
    return None
