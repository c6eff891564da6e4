"""Rewinding a workspace (and its further roots) to a checkpoint, leaving a checkpoint of
what it replaced. A path the undo checkpoint could not save, or the target never saved,
is left as it is and named: a rewind never destroys what it cannot give back."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from gemtui.checkpoints.book import Checkpoint, CheckpointBook, RootState, now_iso
from gemtui.checkpoints.restore import Change, RestoreReport, apply_changes, plan_changes
from gemtui.checkpoints.snapshot import Snapshot
from gemtui.checkpoints.unsaved import LeftAlone, ignored_in, split_unsaved

__all__ = [
    "RewindPlan",
    "RewindResult",
    "RootPlan",
    "UnknownCheckpoint",
    "plan_rewind",
    "rewind",
]


class UnknownCheckpoint(LookupError):
    """No checkpoint of this workspace has that id."""


@dataclass
class RootPlan:
    """What a rewind would do in one root (paths relative to it)."""

    root: Path
    main: bool
    """The workspace itself (its paths are shown relative, others' absolute)."""
    current: Snapshot
    changes: list[Change] = field(default_factory=list)
    by_hand: list[str] = field(default_factory=list)
    left: list[LeftAlone] = field(default_factory=list)

    def shown(self, path: str) -> str:
        """How the person sees ``path``: relative in the workspace, else absolute."""
        return path if self.main else str(self.root / path)


@dataclass
class RewindPlan:
    """What a rewind to ``target`` would do to every root as it is now."""

    target: Checkpoint
    roots: list[RootPlan]
    """The workspace first, then each further root."""

    @property
    def steps(self) -> list[tuple[RootPlan, Change]]:
        return [(r, c) for r in self.roots for c in r.changes]

    @property
    def by_hand(self) -> list[str]:
        """Paths changed since by something other than a tool (listed first, asked in the
        TUI)."""
        return [r.shown(p) for r in self.roots for p in r.by_hand]

    @property
    def left(self) -> list[LeftAlone]:
        """Paths the rewind leaves as they are, because one side was never saved."""
        return [LeftAlone(r.shown(x.path), x.reason) for r in self.roots for x in r.left]


@dataclass
class RewindResult:
    """A finished rewind."""

    plan: RewindPlan
    saved: Checkpoint
    """The checkpoint of what the rewind replaced: rewinding to it undoes the rewind."""
    report: RestoreReport
    kept: list[str] = field(default_factory=list)
    """Files changed by hand since, left as they are (``keep_by_hand``)."""


def _target_states(
    book: CheckpointBook, points: list[Checkpoint], target: Checkpoint
) -> dict[Path, RootState]:
    """Each root as it was at ``target``; a root first checkpointed later (``/directory
    add``) as it was before the first tool that could reach it ran."""
    states = target.states(book.workspace)
    for point in sorted(points, key=lambda p: p.created):
        if point.created > target.created:
            for root, state in point.roots.items():
                states.setdefault(Path(root), state)
    return states


def _plan(book: CheckpointBook, point_id: str) -> RewindPlan:
    points = book.all()
    target = next((p for p in points if p.id == point_id), None)
    if target is None:
        raise UnknownCheckpoint(point_id)
    plans: list[RootPlan] = []
    for root, state in _target_states(book, points, target).items():
        main = root == book.workspace
        if not main and (os.path.realpath(root) != str(root) or not root.is_dir()):
            gone = LeftAlone("", "the folder is no longer there (or is a link now)")
            plans.append(RootPlan(root, main, Snapshot(""), left=[gone]))
            continue
        snap = book.snapshot(root)
        changes = plan_changes(book.repo, snap.tree, state.tree)
        removals = [c.path for c in changes if c.status == "D"]
        ignored = ignored_in(book.repo, state.tree, removals)
        changes, left = split_unsaved(root, changes, snap, state, ignored)
        plan = RootPlan(root, main, snap, changes, left=left)
        afters = [s.after for p in points if (s := p.states(book.workspace).get(root))]
        latest = next((a for a in afters if a), "")
        if latest and changes:
            touched = {c.path for c in changes}
            plan.by_hand = [p for p in book.changed(latest, snap.tree) if p in touched]
        plans.append(plan)
    return RewindPlan(target, plans)


def plan_rewind(book: CheckpointBook, point_id: str) -> RewindPlan:
    """The preview: what ``rewind`` would change (nothing is written)."""
    with book.repo.locked():
        return _plan(book, point_id)


def rewind(
    book: CheckpointBook, point_id: str, *, session: str = "", keep_by_hand: bool = False
) -> RewindResult:
    """Put every file back as it was before ``point_id``'s tool ran, in every root;
    ``keep_by_hand``: all but the files changed by hand since (the person said keep them)."""
    with book.repo.locked():
        plan = _plan(book, point_id)
        kept: list[str] = []
        if keep_by_hand:
            for root in plan.roots:
                hand = set(root.by_hand)
                kept += [root.shown(p) for p in root.by_hand]
                root.changes = [c for c in root.changes if c.path not in hand]
                root.by_hand = []
        main = plan.roots[0].current
        saved = Checkpoint(
            id=uuid.uuid4().hex[:10],
            created=now_iso(),
            session=session,
            prompt=f"rewind to {point_id}",
            tool="rewind",
            skipped=main.skipped,
            unreadable=main.unreadable,
            tree=main.tree,
            roots={
                str(r.root): RootState(
                    r.current.tree, skipped=r.current.skipped, unreadable=r.current.unreadable
                )
                for r in plan.roots[1:]
                if r.current.tree
            },
        )
        book.write(saved)
        report = RestoreReport()
        for root in plan.roots:
            done = apply_changes(book.repo_for(root.root), root.changes)
            report.restored += [root.shown(p) for p in done.restored]
            report.removed += [root.shown(p) for p in done.removed]
            report.failed += [root.shown(p) for p in done.failed]
        book.record_after(saved)
        return RewindResult(plan, saved, report, kept)
