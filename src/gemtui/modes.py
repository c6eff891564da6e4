"""The approval modes: one list for settings, the CLI, the policy engine and the views.

A module of its own (an enum, nothing else) so ``gemtui --version`` and the argument
parser can name the modes without importing the event bus.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ApprovalMode"]


class ApprovalMode(StrEnum):
    """How much runs without asking; the one list of modes every part uses."""

    DEFAULT = "default"
    """Reads run; edits and commands ask."""
    AUTO_EDIT = "auto_edit"
    """Edits in the workspace run too; commands ask."""
    PLAN = "plan"
    """Only tools that look are offered and run."""
    YOLO = "yolo"
    """Everything runs, except what a deny rule or a hidden shell construct stops."""

    @classmethod
    def cycle(cls) -> tuple[ApprovalMode, ...]:
        """What Shift+Tab steps through (yolo has its own key)."""
        return (cls.DEFAULT, cls.AUTO_EDIT, cls.PLAN)
