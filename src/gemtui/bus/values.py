"""The values a view needs before any event arrives: call states, refusals, decisions, usage.

They live apart from the 40-odd event classes (``bus.events``, which re-exports them) so
that the TUI's first frame imports a few enums, not every event (issue 26).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from msgspec import Struct

__all__ = ["ApprovalDecision", "Decision", "Refusal", "TerminateReason", "ToolCallState", "Usage"]


class ToolCallState(StrEnum):
    """A tool call's lifecycle, one state per record (as gemini-cli's scheduler)."""

    VALIDATING = "validating"
    AWAITING_APPROVAL = "awaiting_approval"
    SCHEDULED = "scheduled"
    EXECUTING = "executing"
    SUCCESS = "success"
    ERROR = "error"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        return self in (ToolCallState.SUCCESS, ToolCallState.ERROR, ToolCallState.CANCELLED)


class Refusal(StrEnum):
    """Why a call was not run; views and scripts read this, never the error's wording."""

    INVALID = "invalid"
    """Unknown tool or arguments that failed validation."""
    DENIED = "denied"
    """A policy rule (or plan mode) forbids it."""
    NEEDS_APPROVAL = "needs_approval"
    """It needs a person's approval and none can be given (headless)."""
    REJECTED = "rejected"
    """The person said no."""


class TerminateReason(StrEnum):
    """Why a prompt's loop ended."""

    GOAL = "GOAL"
    TIMEOUT = "TIMEOUT"
    MAX_TURNS = "MAX_TURNS"
    ABORTED = "ABORTED"
    ERROR = "ERROR"
    ERROR_NO_COMPLETE_TASK_CALL = "ERROR_NO_COMPLETE_TASK_CALL"
    LOOP = "LOOP"


class ApprovalDecision(StrEnum):
    """A person's answer to an approval request."""

    ALLOW_ONCE = "allow_once"
    ALLOW_SESSION = "allow_session"
    ALLOW_ALWAYS = "allow_always"
    ALLOW_SERVER = "allow_server"
    """Every tool of this call's MCP server, from now on (saved like ALLOW_ALWAYS)."""
    REJECT = "reject"
    REJECT_WITH_FEEDBACK = "reject_with_feedback"
    MODIFY = "modify"

    @property
    def allows(self) -> bool:
        return self in (
            ApprovalDecision.ALLOW_ONCE,
            ApprovalDecision.ALLOW_SESSION,
            ApprovalDecision.ALLOW_ALWAYS,
            ApprovalDecision.ALLOW_SERVER,
            ApprovalDecision.MODIFY,
        )


class Decision(Struct, frozen=True):
    """A person's (or a policy's) answer to one approval request."""

    decision: ApprovalDecision
    feedback: str | None = None
    """Text for the model (reject with feedback)."""
    modified: str | None = None
    """The edited content or command (modify)."""
    scope: Literal["file", "folder", "every"] | None = None
    """How far an allow for session / always reaches for an edit (its file, its folder,
    every call); None: the narrowest the call offers."""
    raise_usd: float | None = None
    """A budget question's answer: raise the cap by this many USD for this session."""


class Usage(Struct, frozen=True):
    """Tokens of one call or a sum of calls (thoughts billed as output)."""

    input: int = 0
    output: int = 0
    thoughts: int = 0
    cached: int = 0
    total: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.thoughts + other.thoughts,
            self.cached + other.cached,
            self.total + other.total,
        )
