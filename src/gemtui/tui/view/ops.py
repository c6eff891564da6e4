"""What the conversation view asks the screen to draw: one small record per change.

The view model (``conversation.py``) turns each engine event into a list of these;
``MainScreen`` applies them to its widgets and decides nothing itself. They are plain,
comparable values, so a unit test reads the rules of the view as a list of changes
without a terminal, an App or Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from gemtui.bus.events import AccountStatus, BudgetAsked, ToolCallSnapshot
    from gemtui.bus.rate_limits import RateLimits
    from gemtui.bus.values import Usage

__all__ = [
    "AccountRefused",
    "AccountShown",
    "AnswerClosed",
    "AnswerDiscarded",
    "AnswerOpened",
    "AnswerText",
    "BudgetQuestion",
    "CompressionCounted",
    "LimitsShown",
    "McpViewsStale",
    "ModelCallStarted",
    "Notice",
    "Op",
    "PromptCancelled",
    "RetryWaitStarted",
    "ScrolledToLatest",
    "Severity",
    "SignInNeeded",
    "StatusChanged",
    "StreamEnded",
    "Streamed",
    "SubagentText",
    "SubagentTurn",
    "ThoughtMarker",
    "ThoughtText",
    "TodosShown",
    "ToolCallShown",
    "ToolOutputShown",
    "TurnCounted",
    "TurnEnded",
    "UserPromptShown",
    "WindowChanged",
]

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Op:
    """One change to the view (the base of every record here)."""


@dataclass(frozen=True, slots=True)
class Notice(Op):
    """An inline note in the transcript."""

    text: str
    severity: Severity = "information"


@dataclass(frozen=True, slots=True)
class ScrolledToLatest(Op):
    """The transcript follows its end again: what the person must see next is there."""


@dataclass(frozen=True, slots=True)
class UserPromptShown(Op):
    """A prompt the person sent (already masked)."""

    text: str


@dataclass(frozen=True, slots=True)
class PromptCancelled(Op):
    """The latest prompt's block says it was cancelled."""


@dataclass(frozen=True, slots=True)
class AnswerOpened(Op):
    """An answer block streams from here (kept if one is already open)."""


@dataclass(frozen=True, slots=True)
class AnswerText(Op):
    """Masked answer text to append to the open answer."""

    text: str


@dataclass(frozen=True, slots=True)
class AnswerClosed(Op):
    """The answer in flight is complete."""


@dataclass(frozen=True, slots=True)
class AnswerDiscarded(Op):
    """The answer in flight is thrown away (its stream is retried)."""


@dataclass(frozen=True, slots=True)
class ThoughtText(Op):
    """Masked thought text for the thoughts pane."""

    text: str
    subject: str | None
    prompt_id: str


@dataclass(frozen=True, slots=True)
class ThoughtMarker(Op):
    """A dim line in the transcript: the model thought here (about ``subject``)."""

    subject: str | None


@dataclass(frozen=True, slots=True)
class SubagentText(Op):
    """A subagent's words, for its delegation card (never the answer)."""

    parent_id: str
    text: str


@dataclass(frozen=True, slots=True)
class SubagentTurn(Op):
    """A subagent's model call finished: its card and its usage line count it."""

    parent_id: str
    tokens: int
    usage: Usage
    cost: float | None


@dataclass(frozen=True, slots=True)
class ToolCallShown(Op):
    """A tool call's new state: its card, the approval queue and the status line."""

    call: ToolCallSnapshot
    parent_id: str
    prompt_id: str


@dataclass(frozen=True, slots=True)
class ToolOutputShown(Op):
    """Live output of a running call, for its card."""

    call_id: str
    text: str


@dataclass(frozen=True, slots=True)
class TodosShown(Op):
    """The whole todo list (the model always sends all of it)."""

    statuses: tuple[str, ...]
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Streamed(Op):
    """Text arrived for the call in flight: the usage estimate and the rate grow."""

    text: str
    thought: bool = False


@dataclass(frozen=True, slots=True)
class TurnCounted(Op):
    """A model call's usage and cost, for the usage pane."""

    usage: Usage
    cost: float | None


@dataclass(frozen=True, slots=True)
class CompressionCounted(Op):
    """The history was compressed from ``before`` to ``after`` tokens."""

    before: int
    after: int


@dataclass(frozen=True, slots=True)
class AccountShown(Op):
    """The signed-in account and its quota, for the usage pane."""

    status: AccountStatus


@dataclass(frozen=True, slots=True)
class StreamEnded(Op):
    """Nothing streams any more: the usage pane drops its live estimate."""


@dataclass(frozen=True, slots=True)
class LimitsShown(Op):
    """The provider's rate limits as its last answer said them (status line, usage pane)."""

    limits: RateLimits


@dataclass(frozen=True, slots=True)
class StatusChanged(Op):
    """Status line fields to set; ``None`` leaves a field as it is."""

    provider: str | None = None
    model: str | None = None
    busy: str | None = None
    mcp: str | None = None
    mcp_trouble: bool | None = None
    limits: str | None = None


@dataclass(frozen=True, slots=True)
class ModelCallStarted(Op):
    """A model call began (the status line times it)."""


@dataclass(frozen=True, slots=True)
class TurnEnded(Op):
    """The prompt's work is over (the status line settles)."""


@dataclass(frozen=True, slots=True)
class RetryWaitStarted(Op):
    """A retry wait began: the screen ticks :class:`RetryCountdown` until it ends."""


@dataclass(frozen=True, slots=True)
class McpViewsStale(Op):
    """An MCP server changed: an open /mcp view redraws."""


@dataclass(frozen=True, slots=True)
class WindowChanged(Op):
    """The session's model changed: the usage pane measures against its window and
    says whether its price is known."""

    context_window: int
    priced: bool


@dataclass(frozen=True, slots=True)
class AccountRefused(Op):
    """Google refused the account for this client: the app explains what works instead."""

    reason: str


@dataclass(frozen=True, slots=True)
class SignInNeeded(Op):
    """The Google account's grant was refused: the app opens the sign-in dialog."""

    reason: str


@dataclass(frozen=True, slots=True)
class BudgetQuestion(Op):
    """A cap stops the next model call: the app asks whether to raise it or stop (or,
    for a model with no price, whether to go on without one)."""

    asked: BudgetAsked
