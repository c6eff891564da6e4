"""Rewinding a workspace to a checkpoint, leaving a checkpoint of what it replaced."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from gemtui.checkpoints.book import Checkpoint, CheckpointBook, now_iso
from gemtui.checkpoints.restore import Change, RestoreReport, apply_changes, plan_changes

__all__ = ["RewindPlan", "RewindResult", "UnknownCheckpoint", "plan_rewind", "rewind"]


class UnknownCheckpoint(LookupError):
    """No checkpoint of this workspace has that id."""


@dataclass
class RewindPlan:
    """What a rewind to ``target`` would do to the workspace as it is now."""

    target: Checkpoint
    current_tree: str
    changes: list[Change]
    by_hand: list[str] = field(default_factory=list)
    """Paths changed since by something other than a tool (listed first, asked in the TUI)."""
    skipped: list[str] = field(default_factory=list)


@dataclass
class RewindResult:
    """A finished rewind."""

    plan: RewindPlan
    saved: Checkpoint
    """The checkpoint of what the rewind replaced: rewinding to it undoes the rewind."""
    report: RestoreReport


def _plan(book: CheckpointBook, point_id: str) -> RewindPlan:
    points = book.all()
    target = next((p for p in points if p.id == point_id), None)
    if target is None:
        raise UnknownCheckpoint(point_id)
    snap = book.snapshot()
    kept_out = set(target.skipped)  # over the cap then: not in the tree, not ours to remove
    changes = [
        c
        for c in plan_changes(book.repo, snap.tree, target.tree)
        if not (c.status == "D" and c.path in kept_out)
    ]
    latest = next((p for p in points if p.after), None)
    by_hand: list[str] = []
    if latest is not None and changes:
        touched = {c.path for c in changes}
        by_hand = [p for p in book.changed(latest.after, snap.tree) if p in touched]
    return RewindPlan(target, snap.tree, changes, by_hand, snap.skipped)


def plan_rewind(book: CheckpointBook, point_id: str) -> RewindPlan:
    """The preview: what ``rewind`` would change (nothing is written)."""
    with book.repo.locked():
        return _plan(book, point_id)


def rewind(book: CheckpointBook, point_id: str, *, session: str = "") -> RewindResult:
    """Put every file back as it was before ``point_id``'s tool ran."""
    with book.repo.locked():
        plan = _plan(book, point_id)
        saved = Checkpoint(
            id=uuid.uuid4().hex[:10],
            created=now_iso(),
            session=session,
            prompt=f"rewind to {point_id}",
            tool="rewind",
            skipped=plan.skipped,
            tree=plan.current_tree,
        )
        book.write(saved)
        report = apply_changes(book.repo, plan.changes)
        after = book.snapshot().tree
        saved.after = after
        saved.files = book.changed(plan.current_tree, after)
        book.repo.run("update-ref", f"refs/after/{saved.id}", after)
        book.write(saved)
        return RewindResult(plan, saved, report)
