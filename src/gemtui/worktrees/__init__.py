"""Agents' git worktrees: bringing an agent's work back into the main checkout."""

from gemtui.worktrees.bring_back import (
    BringBackError,
    MergeConflictError,
    UncommittedWorkError,
    WorkDiff,
    discard,
    keep,
    merge,
    work_diff,
)
from gemtui.worktrees.linked import LinkedWorktree, linked_worktrees

__all__ = [
    "BringBackError",
    "LinkedWorktree",
    "MergeConflictError",
    "UncommittedWorkError",
    "WorkDiff",
    "discard",
    "keep",
    "linked_worktrees",
    "merge",
    "work_diff",
]
