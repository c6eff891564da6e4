"""Recording, listing and pruning a workspace's checkpoints.

A checkpoint is a ref ``refs/checkpoints/ID`` to a parentless commit whose tree is the
workspace before a tool ran and whose message is the checkpoint's JSON record; the tree
after the tool ran is kept as ``refs/after/ID``, so the files a call changed are a cheap
tree diff. Unchanged files share their objects, and the shadow index is git's stat cache:
a checkpoint of an unchanged workspace costs one scan and one ``write-tree``.

Further roots (``--include-directories``) are checkpointed with the workspace, in the
same repository: their trees are in the record's ``roots`` (keyed by absolute path) and
kept by ``refs/roots/ID/KEY/before`` and ``…/after``. A root inside another root is
covered by the outer one; a root holding the workspace leaves the workspace's folder to
the workspace's own tree.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gemtui.checkpoints.shadow import ShadowRepo, path_key, shadow_dir
from gemtui.checkpoints.snapshot import Snapshot, take_snapshot

__all__ = ["Checkpoint", "CheckpointBook", "RootState", "now_iso"]

_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@dataclass
class RootState:
    """One root's trees in a checkpoint, and what its snapshot could not save."""

    tree: str
    after: str = ""
    skipped: list[str] = field(default_factory=list)
    """Files left out because they were over the size cap."""
    unreadable: list[str] = field(default_factory=list)
    """Files left out because gemtui may not read them."""


@dataclass
class Checkpoint:
    """One checkpoint's record (the ``gemtui checkpoints --json`` row).

    ``files`` are relative to the workspace, or absolute for a further root's files.
    """

    id: str
    created: str
    session: str
    prompt: str
    tool: str
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Files left out because they were over the size cap."""
    unreadable: list[str] = field(default_factory=list)
    """Files left out because gemtui may not read them."""
    tree: str = ""
    after: str = ""
    roots: dict[str, RootState] = field(default_factory=dict)
    """Further roots' states, by absolute path."""

    def row(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("tree", "after", "skipped", "unreadable", "roots"):
            data.pop(key)
        return data

    def states(self, workspace: Path) -> dict[Path, RootState]:
        """Every root's state, the workspace first."""
        main = RootState(self.tree, self.after, self.skipped, self.unreadable)
        return {workspace: main, **{Path(k): v for k, v in self.roots.items()}}


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
        own: Sequence[Path] = (),
    ) -> None:
        self.repo = ShadowRepo(shadow_dir(data_dir, workspace), workspace)
        self.workspace = self.repo.workspace
        self.own = [Path(os.path.realpath(p)) for p in (data_dir, *own)]
        """gemtui's own folders (the checkpoints themselves, sessions, logs) and any other
        path the caller keeps out (a home's secrets): never in a checkpoint, never rewound,
        even inside a root (``--include-directories ~``)."""
        self.max_file_size = max_file_size
        self.keep = keep
        self.keep_days = keep_days

    # -- roots ----------------------------------------------------------------------------

    def repo_for(self, root: Path) -> ShadowRepo:
        """The shadow repo whose work tree is ``root`` (the workspace's own, or a further
        root's in the same repository)."""
        return self.repo if root == self.workspace else self.repo.for_root(root)

    def further(self, roots: Sequence[Path]) -> list[Path]:
        """The further roots a checkpoint covers: real paths, each once, none inside the
        workspace or inside another (the outer one covers it)."""
        real = sorted(
            {Path(os.path.realpath(r)) for r in roots if os.path.isdir(r)} - {self.workspace}
        )
        return [
            r
            for r in real
            if not any(r.is_relative_to(o) for o in (self.workspace, *real) if o != r)
        ]

    def snapshot(self, root: Path | None = None) -> Snapshot:
        """Bring ``root``'s shadow index up to it and write its tree (lock held)."""
        root = root or self.workspace
        inner = [*self.own, *([self.workspace] if root != self.workspace else [])]
        exclude = [p.relative_to(root).as_posix() for p in inner if p.is_relative_to(root)]
        return take_snapshot(self.repo_for(root), self.max_file_size, exclude)

    # -- taking ---------------------------------------------------------------------------

    def begin(
        self, *, session: str, prompt: str, tool: str, roots: Sequence[Path] = ()
    ) -> Checkpoint:
        """Record the workspace (and every further root) as it is now, before ``tool``."""
        with self.repo.locked():
            snap = self.snapshot()
            point = Checkpoint(
                id=uuid.uuid4().hex[:10],
                created=now_iso(),
                session=session,
                prompt=prompt,
                tool=tool,
                skipped=snap.skipped,
                unreadable=snap.unreadable,
                tree=snap.tree,
            )
            for root in self.further(roots):
                other = self.snapshot(root)
                point.roots[str(root)] = RootState(
                    other.tree, skipped=other.skipped, unreadable=other.unreadable
                )
            self.write(point)
            return point

    def finish(self, point: Checkpoint) -> Checkpoint:
        """After the tool ran: keep its resulting trees and the files it changed."""
        with self.repo.locked():
            self.record_after(point)
            self._prune()
            return point

    def record_after(self, point: Checkpoint) -> None:
        """Snapshot every root of ``point`` again: its after trees and changed files."""
        point.after = self.snapshot().tree
        files = self.changed(point.tree, point.after)
        for root, state in point.roots.items():
            state.after = self.snapshot(Path(root)).tree
            files += [str(Path(root) / p) for p in self.changed(state.tree, state.after)]
        point.files = files
        self.write(point)

    def write(self, point: Checkpoint) -> None:
        record = {k: v for k, v in asdict(point).items() if k not in ("tree",)}
        message = json.dumps(record, ensure_ascii=False)
        commit = self.repo.text("commit-tree", point.tree, "-m", message).strip()
        refs = [f"update refs/checkpoints/{point.id} {commit}\n"]
        if point.after:
            refs.append(f"update refs/after/{point.id} {point.after}\n")
        for root, state in point.roots.items():
            base = f"refs/roots/{point.id}/{path_key(Path(root))}"
            refs.append(f"update {base}/before {state.tree}\n")
            if state.after:
                refs.append(f"update {base}/after {state.after}\n")
        self.repo.run("update-ref", "--stdin", stdin="".join(refs).encode())

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
                fields["roots"] = {k: RootState(**v) for k, v in data.get("roots", {}).items()}
                point = Checkpoint(**fields)
            except (ValueError, TypeError, KeyError, AttributeError):
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
        for p in drop:
            out = self.repo.text("for-each-ref", "--format=%(refname)", f"refs/roots/{p.id}/")
            lines += "".join(f"delete {ref}\n" for ref in out.split())
        self.repo.run("update-ref", "--stdin", stdin=lines.encode())
        self.repo.run("gc", "--prune=now", "--quiet")
