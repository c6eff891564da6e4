"""Agents' git worktrees: bringing an agent's work back into the main checkout."""

from gemtui.worktrees.bring_back import (
    BringBackError,
    DiscardPlan,
    MergeConflictError,
    UncommittedWorkError,
    WorkChangedError,
    WorkDiff,
    discard,
    discard_plan,
    keep,
    merge,
    work_diff,
)
from gemtui.worktrees.linked import LinkedWorktree, linked_worktrees

__all__ = [
    "BringBackError",
    "DiscardPlan",
    "LinkedWorktree",
    "MergeConflictError",
    "UncommittedWorkError",
    "WorkChangedError",
    "WorkDiff",
    "discard",
    "discard_plan",
    "keep",
    "linked_worktrees",
    "merge",
    "work_diff",
]
