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

__all__ = [
    "BringBackError",
    "MergeConflictError",
    "UncommittedWorkError",
    "WorkDiff",
    "discard",
    "keep",
    "merge",
    "work_diff",
]
