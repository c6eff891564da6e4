"""What the conversation view asks the screen to draw: one small record per change.

The view model (``conversation.py``) turns each engine event into a list of these;
``MainScreen`` applies them to its widgets and decides nothing itself. They are plain,
comparable values (msgspec Structs: as dataclasses, they cost ~25 ms before the first
frame), so a unit test reads the rules of the view as a list of changes
without a terminal, an App or Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from msgspec import Struct

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


class Op(Struct, frozen=True):
    """One change to the view (the base of every record here)."""


class Notice(Op, frozen=True):
    """An inline note in the transcript."""

    text: str
    severity: Severity = "information"


class ScrolledToLatest(Op, frozen=True):
    """The transcript follows its end again: what the person must see next is there."""


class UserPromptShown(Op, frozen=True):
    """A prompt the person sent (already masked)."""

    text: str


class PromptCancelled(Op, frozen=True):
    """The latest prompt's block says it was cancelled."""


class AnswerOpened(Op, frozen=True):
    """An answer block streams from here (kept if one is already open)."""


class AnswerText(Op, frozen=True):
    """Masked answer text to append to the open answer."""

    text: str


class AnswerClosed(Op, frozen=True):
    """The answer in flight is complete."""


class AnswerDiscarded(Op, frozen=True):
    """The answer in flight is thrown away (its stream is retried)."""


class ThoughtText(Op, frozen=True):
    """Masked thought text for the thoughts pane."""

    text: str
    subject: str | None
    prompt_id: str


class ThoughtMarker(Op, frozen=True):
    """A dim line in the transcript: the model thought here (about ``subject``)."""

    subject: str | None


class SubagentText(Op, frozen=True):
    """A subagent's words, for its delegation card (never the answer)."""

    parent_id: str
    text: str


class SubagentTurn(Op, frozen=True):
    """A subagent's model call finished: its card and its usage line count it."""

    parent_id: str
    tokens: int
    usage: Usage
    cost: float | None


class ToolCallShown(Op, frozen=True):
    """A tool call's new state: its card, the approval queue and the status line."""

    call: ToolCallSnapshot
    parent_id: str
    prompt_id: str


class ToolOutputShown(Op, frozen=True):
    """Live output of a running call, for its card."""

    call_id: str
    text: str


class TodosShown(Op, frozen=True):
    """The whole todo list (the model always sends all of it)."""

    statuses: tuple[str, ...]
    lines: tuple[str, ...]


class Streamed(Op, frozen=True):
    """Text arrived for the call in flight: the usage estimate and the rate grow."""

    text: str
    thought: bool = False


class TurnCounted(Op, frozen=True):
    """A model call's usage and cost, for the usage pane."""

    usage: Usage
    cost: float | None


class CompressionCounted(Op, frozen=True):
    """The history was compressed from ``before`` to ``after`` tokens."""

    before: int
    after: int


class AccountShown(Op, frozen=True):
    """The signed-in account and its quota, for the usage pane."""

    status: AccountStatus


class StreamEnded(Op, frozen=True):
    """Nothing streams any more: the usage pane drops its live estimate."""


class LimitsShown(Op, frozen=True):
    """The provider's rate limits as its last answer said them (status line, usage pane)."""

    limits: RateLimits


class StatusChanged(Op, frozen=True):
    """Status line fields to set; ``None`` leaves a field as it is."""

    provider: str | None = None
    model: str | None = None
    busy: str | None = None
    mcp: str | None = None
    mcp_trouble: bool | None = None
    limits: str | None = None


class ModelCallStarted(Op, frozen=True):
    """A model call began (the status line times it)."""


class TurnEnded(Op, frozen=True):
    """The prompt's work is over (the status line settles)."""


class RetryWaitStarted(Op, frozen=True):
    """A retry wait began: the screen ticks :class:`RetryCountdown` until it ends."""


class McpViewsStale(Op, frozen=True):
    """An MCP server changed: an open /mcp view redraws."""


class WindowChanged(Op, frozen=True):
    """The session's model changed: the usage pane measures against its window and
    says whether its price is known."""

    context_window: int
    priced: bool


class AccountRefused(Op, frozen=True):
    """Google refused the account for this client: the app explains what works instead."""

    reason: str


class SignInNeeded(Op, frozen=True):
    """The Google account's grant was refused: the app opens the sign-in dialog."""

    reason: str


class BudgetQuestion(Op, frozen=True):
    """A cap stops the next model call: the app asks whether to raise it or stop (or,
    for a model with no price, whether to go on without one)."""

    asked: BudgetAsked
