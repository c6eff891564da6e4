"""Recording, listing and pruning a workspace's checkpoints.

A checkpoint is a ref ``refs/checkpoints/ID`` to a parentless commit whose tree is the
workspace before a tool ran and whose message is the checkpoint's JSON record; the tree
after the tool ran is kept as ``refs/after/ID``, so the files a call changed are a cheap
tree diff. Unchanged files share their objects, and the shadow index is git's stat cache:
a checkpoint of an unchanged workspace costs one scan and one ``write-tree``.
"""

from __future__ import annotations

import json
import os
import stat
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gemtui.checkpoints.shadow import ShadowRepo, shadow_dir

__all__ = ["Checkpoint", "CheckpointBook", "Snapshot", "now_iso"]

_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@dataclass
class Checkpoint:
    """One checkpoint's record (the ``gemtui checkpoints --json`` row)."""

    id: str
    created: str
    session: str
    prompt: str
    tool: str
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Files left out because they were over the size cap."""
    tree: str = ""
    after: str = ""

    def row(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("tree", "after", "skipped"):
            data.pop(key)
        return data


@dataclass(frozen=True)
class Snapshot:
    """A tree written from the shadow index, and the files left out for size."""

    tree: str
    skipped: list[str]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class CheckpointBook:
    """The checkpoints of one workspace."""

    def __init__(
        self,
        data_dir: Path,
        workspace: Path,
        *,
        max_file_size: int = 10_000_000,
        keep: int = 100,
        keep_days: float = 7.0,
    ) -> None:
        self.repo = ShadowRepo(shadow_dir(data_dir, workspace), workspace)
        self.workspace = self.repo.workspace
        self.max_file_size = max_file_size
        self.keep = keep
        self.keep_days = keep_days

    # -- taking ---------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """Bring the shadow index up to the workspace and write its tree (lock held)."""
        out = self.repo.run(
            "ls-files", "-z", "--modified", "--others", "--deleted", "--exclude-standard"
        )
        paths = sorted({p for p in out.decode("utf-8", "surrogateescape").split("\0") if p})
        update: list[str] = []
        remove: list[str] = []
        skipped: list[str] = []
        real_dirs: dict[str, bool] = {}
        for path in paths:
            if path.endswith("/"):  # a nested repository: not ours to store
                continue
            try:
                if not self._real_parent(path, real_dirs):
                    raise FileNotFoundError(path)  # under a link now: gone from here
                st = os.lstat(self.workspace / path)
            except (FileNotFoundError, NotADirectoryError):
                remove.append(path)
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size > self.max_file_size:
                skipped.append(path)
                remove.append(path)
            elif stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
                update.append(path)
        if remove:
            data = "".join(f"{p}\0" for p in remove).encode("utf-8", "surrogateescape")
            self.repo.run("update-index", "-z", "--force-remove", "--stdin", stdin=data)
        if update:
            data = "".join(f"{p}\0" for p in update).encode("utf-8", "surrogateescape")
            self.repo.run(
                "update-index", "-z", "--add", "--remove", "--replace", "--stdin", stdin=data
            )
        tree = self.repo.text("write-tree").strip()
        return Snapshot(tree, skipped)

    def _real_parent(self, path: str, known: dict[str, bool]) -> bool:
        """Whether every folder above ``path`` is a real folder (not a link)."""
        parent = path.rpartition("/")[0]
        if not parent:
            return True
        if parent not in known:
            st = (
                os.lstat(self.workspace / parent)
                if os.path.lexists(self.workspace / parent)
                else None
            )
            ok = st is not None and stat.S_ISDIR(st.st_mode)
            known[parent] = ok and self._real_parent(parent, known)
        return known[parent]

    def begin(self, *, session: str, prompt: str, tool: str) -> Checkpoint:
        """Record the workspace as it is now, before ``tool`` runs."""
        with self.repo.locked():
            snap = self.snapshot()
            point = Checkpoint(
                id=uuid.uuid4().hex[:10],
                created=now_iso(),
                session=session,
                prompt=prompt,
                tool=tool,
                skipped=snap.skipped,
                tree=snap.tree,
            )
            self.write(point)
            return point

    def finish(self, point: Checkpoint) -> Checkpoint:
        """After the tool ran: keep its resulting tree and the files it changed."""
        with self.repo.locked():
            after = self.snapshot().tree
            point.after = after
            point.files = self.changed(point.tree, after)
            self.repo.run("update-ref", f"refs/after/{point.id}", after)
            self.write(point)
            self._prune()
            return point

    def write(self, point: Checkpoint) -> None:
        record = {k: v for k, v in asdict(point).items() if k not in ("tree",)}
        message = json.dumps(record, ensure_ascii=False)
        commit = self.repo.text("commit-tree", point.tree, "-m", message).strip()
        self.repo.run("update-ref", f"refs/checkpoints/{point.id}", commit)

    def changed(self, old: str, new: str) -> list[str]:
        """Paths that differ between two trees."""
        if old == new:
            return []
        out = self.repo.run("diff-tree", "-r", "-z", "--no-renames", "--name-only", old, new)
        return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]

    # -- reading --------------------------------------------------------------------------

    def all(self) -> list[Checkpoint]:
        """This workspace's checkpoints, newest first."""
        if not self.repo.exists:
            return []
        out = self.repo.text(
            "for-each-ref", "refs/checkpoints/", "--format=%(tree)\t%(contents:subject)"
        )
        points: list[Checkpoint] = []
        for line in out.splitlines():
            tree, _, message = line.partition("\t")
            try:
                data = json.loads(message)
                fields = {k: data[k] for k in Checkpoint.__dataclass_fields__ if k in data}
                point = Checkpoint(**fields)
            except (ValueError, TypeError, KeyError):
                continue
            point.tree = tree
            points.append(point)
        points.sort(key=lambda p: p.created, reverse=True)
        return points

    def get(self, point_id: str) -> Checkpoint | None:
        return next((p for p in self.all() if p.id == point_id), None)

    # -- retention ------------------------------------------------------------------------

    def _prune(self) -> None:
        """Keep the newest ``keep`` plus every checkpoint of a session seen in the last
        ``keep_days``; drop the rest and let git's gc remove what they alone held."""
        points = self.all()
        if len(points) <= self.keep:
            return
        cutoff = time.time() - self.keep_days * 86400
        recent = {
            p.session
            for p in points
            if datetime.fromisoformat(p.created.replace("Z", "+00:00")).timestamp() >= cutoff
        }
        drop = [p for p in points[self.keep :] if p.session not in recent]
        if not drop:
            return
        lines = "".join(f"delete refs/checkpoints/{p.id}\ndelete refs/after/{p.id}\n" for p in drop)
        self.repo.run("update-ref", "--stdin", stdin=lines.encode())
        self.repo.run("gc", "--prune=now", "--quiet")
