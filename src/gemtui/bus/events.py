"""Every event the engine publishes: the contract between the engine and every view.

One closed set of small frozen records (msgspec Structs: their classes are made in C, where
33 dataclasses took ~50 ms of a slow machine's start). Each carries ``session_id``, ``prompt_id``
(``{session}#{turn}``) and a monotonic ``seq`` given by the bus. Deltas are never
coalesced by the engine; a slow subscriber's queue may merge adjacent ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct, field

from gemtui.bus.values import (
    ApprovalDecision,
    Decision,
    Refusal,
    TerminateReason,
    ToolCallState,
    Usage,
)
from gemtui.modes import ApprovalMode

if TYPE_CHECKING:  # the wire types are pydantic; the events module stays import-light
    from gemtui.bus.rate_limits import RateLimits
    from gemtui.wire import Content

__all__ = [
    "AccountStatus",
    "AgentFinished",
    "ApprovalDecision",
    "ApprovalMode",
    "BudgetAsked",
    "Citation",
    "Confirmation",
    "ContentDelta",
    "Decision",
    "ErrorOccurred",
    "Event",
    "HistoryAppended",
    "HistoryCompressed",
    "HistoryReplaced",
    "HookRan",
    "LoopDetected",
    "McpServerChanged",
    "ModelChanged",
    "ModelFallback",
    "ModelRouted",
    "ProviderProgress",
    "QuotaShare",
    "RateLimitNear",
    "RateLimitsSeen",
    "Refusal",
    "RequestRetrying",
    "SessionStarted",
    "StreamRetried",
    "SubagentHistoryAppended",
    "TerminateReason",
    "ThoughtDelta",
    "TodosUpdated",
    "ToolCallSnapshot",
    "ToolCallState",
    "ToolCallStateChanged",
    "ToolOutput",
    "TurnFinished",
    "TurnStarted",
    "Usage",
    "UserMessage",
    "quota_lines",
]


class Event(Struct, frozen=True, kw_only=True):
    """What every event carries: its session, its prompt and its place in order."""

    session_id: str = ""
    prompt_id: str = ""
    seq: int = 0
    parent_id: str = ""
    """Set on a subagent's events: the id of the parent's tool call that started it."""


class SessionStarted(Event, frozen=True, kw_only=True):
    """A session began: which provider, model and folder (views and the recorder start here)."""

    provider: str
    model: str
    workspace: str


class UserMessage(Event, frozen=True, kw_only=True):
    """The person's prompt, published the moment it is sent (saved before the model sees it)."""

    text: str
    attached: str = ""
    """What ``@`` paths attached (files, and those left out and why); empty if none."""


class TurnStarted(Event, frozen=True, kw_only=True):
    """A model call begins (one per turn of the loop)."""

    turn: int
    model: str


class ContentDelta(Event, frozen=True, kw_only=True):
    """A piece of the model's answer as it streams."""

    text: str


class ThoughtDelta(Event, frozen=True, kw_only=True):
    """A piece of the model's thinking as it streams."""

    text: str
    """The thought's text, its ``**heading**`` already taken off (parsed once, here)."""
    subject: str | None = None
    """The heading of the thought this text belongs to; carried over to later deltas."""


class Citation(Event, frozen=True, kw_only=True):
    """A source the model cited in its answer."""

    text: str


class StreamRetried(Event, frozen=True, kw_only=True):
    """The stream broke or was invalid: discard the partial answer of this turn."""

    attempt: int
    reason: str


class RequestRetrying(Event, frozen=True, kw_only=True):
    """The provider call failed and will be retried after ``wait`` seconds."""

    attempt: int
    """The attempt that just failed, counted from 1."""
    max_attempts: int
    wait: float
    message: str
    target: str = ""
    """What was tried, in a few words for a status line (``nothing on 127.0.0.1:8080``);
    empty when the message alone says it."""

    @property
    def next_attempt(self) -> int:
        """The attempt that will run after the wait: what every view shows."""
        return self.attempt + 1

    def summary(self) -> str:
        """One line every view words alike, so the TUI and stderr never disagree."""
        return (
            f"{self.message} — retrying in {self.wait:.1f}s "
            f"(attempt {self.next_attempt}/{self.max_attempts})"
        )


class ModelChanged(Event, frozen=True, kw_only=True):
    """The next request goes to another model or provider (``/model``, a sign-in, a quota
    fallback): views show the new one from here, never by reading the session again."""

    from_model: str
    to_model: str
    from_provider: str
    to_provider: str
    context_window: int
    """The window the context line measures against from now on."""
    priced: bool
    """Whether the new model's price is known (the usage pane shows a cost)."""


class ModelFallback(Event, frozen=True, kw_only=True):
    """The model ran out of quota and the turn goes on with the next one."""

    from_model: str
    to_model: str
    reason: str
    from_provider: str = ""
    to_provider: str = ""
    """Another provider than ``from_provider`` when a ``PROVIDER:MODEL`` fallback was taken."""

    @property
    def source(self) -> str:
        """The model left, ``PROVIDER:MODEL`` when the provider changed too."""
        moves = self.to_provider != self.from_provider
        return f"{self.from_provider}:{self.from_model}" if moves else self.from_model

    @property
    def target(self) -> str:
        """The model taken, ``PROVIDER:MODEL`` when the provider changed too."""
        moves = self.to_provider != self.from_provider
        return f"{self.to_provider}:{self.to_model}" if moves else self.to_model

    @property
    def moved(self) -> dict[str, str]:
        """From, to and why (headless ``stats.fallbacks``)."""
        return {"from": self.source, "to": self.target, "reason": self.reason}


class ModelRouted(Event, frozen=True, kw_only=True):
    """``-m auto`` chose the model for this prompt (or fell back to the default)."""

    model: str
    reason: str
    router_model: str
    usage: Usage
    """What the classification call cost (counted in the prompt's usage)."""
    fell_back: bool = False

    def summary(self) -> str:
        """One line every view words alike."""
        how = "kept" if self.fell_back else "chose"
        return f"auto {how} {self.model}" + (f": {self.reason}" if self.reason else "")


class TurnFinished(Event, frozen=True, kw_only=True):
    """One model call completed."""

    finish_reason: str | None
    usage: Usage
    model: str
    message: str | None = None
    """A clear message for SAFETY / RECITATION / MAX_TOKENS / malformed calls."""
    cost: float | None = None
    """USD for this call at the model's price; None when no price is known."""


class Confirmation(Struct, frozen=True):
    """The preview shown before a person approves a call (a diff, a command, URLs…);
    typed here, next to the snapshot that carries it, so views never see ``Any``."""

    kind: Literal["edit", "exec", "fetch", "mcp", "info"]
    title: str
    file_path: str | None = None
    original: str | None = None
    proposed: str | None = None
    diff: str | None = None
    command: str | None = None
    root_command: str | None = None
    cwd: str | None = None
    has_redirection: bool = False
    urls: tuple[str, ...] = ()
    server: str | None = None
    remembers: tuple[str, ...] | None = None
    """What "allow for this session / always" would save, one entry per rule: filled in
    by the scheduler from the policy engine, so the preview shows exactly that; empty
    when nothing can be saved, None when no scheduler asked."""
    scopes: tuple[tuple[str, str], ...] = ()
    """For an edit, each reach an allow may choose — (``file`` / ``folder`` / ``every``,
    what it covers) — narrowest first; ``remembers`` shows the first."""
    agent: str | None = None
    """The subagent whose call this is (None: the conversation's own model asks)."""


class ToolCallSnapshot(Struct, frozen=True):
    """The full record of one tool call at one moment; views render these, never patch."""

    call_id: str
    name: str
    args: dict[str, Any]
    state: ToolCallState
    description: str = ""
    kind: str = "other"
    correlation_id: str | None = None
    """Set while awaiting approval: answer it with ``Bus.decide``."""
    confirmation: Confirmation | None = None
    """The preview (diff, command) while awaiting approval."""
    decision: ApprovalDecision | None = None
    output: str | None = None
    """What the person sees of the result."""
    error: str | None = None
    duration_ms: float | None = None
    refusal: Refusal | None = None
    """Set when the call was not run: why, as a code (``error`` says it in words)."""
    approval_reason: str | None = None
    """Why the policy asked (a protected path, a hidden shell construct…), if it did."""
    repair: str | None = None
    """How the model's arguments were repaired to pass validation (``path → file_path``,
    JSON in a string), shown on the tool card; None when they were sent right."""
    output_file: str | None = None
    """The file holding the whole output when it was longer than the model's share
    (``[tools] output_limit``); ``output`` is then the preview."""
    exit_code: int | None = None
    """A command's exit status (negative: the signal that ended it); None for a call
    that is not a command. A call can succeed while its command failed: views mark a
    non-zero one as failed."""


class ToolCallStateChanged(Event, frozen=True, kw_only=True):
    """A tool call's new snapshot (views render it whole, never patch)."""

    call: ToolCallSnapshot


class ToolOutput(Event, frozen=True, kw_only=True):
    """Live output of a running call (shell)."""

    call_id: str
    text: str


class TodosUpdated(Event, frozen=True, kw_only=True):
    """The model replaced its todo list (``write_todos``); each item has description, status."""

    todos: tuple[dict[str, str], ...]

    def done_count(self) -> int:
        return sum(1 for t in self.todos if t.get("status") == "completed")

    def lines(self) -> list[str]:
        """One line per item with a status mark, worded alike in every view."""
        return [
            f"{TODO_MARKS.get(t.get('status', ''), '○')} {t.get('description', '')}"
            for t in self.todos
        ]


TODO_MARKS: dict[str, str] = {
    "pending": "○",
    "in_progress": "◐",
    "completed": "●",
    "cancelled": "⊘",
    "blocked": "⊗",
}
"""The mark each todo status is drawn with."""


# -- the conversation history: its one writer publishes every change --------------------


class HistoryAppended(Event, frozen=True, kw_only=True):
    """``content`` became entry ``index`` of the history (the store saves it as it is)."""

    index: int
    content: Content


class HistoryReplaced(Event, frozen=True, kw_only=True):
    """The whole history is now ``contents`` (resume, compression, a model switch…)."""

    contents: tuple[Content, ...]
    reason: str
    """``resume``, ``compression``, ``model`` or ``clear``: why it was replaced."""


class SubagentHistoryAppended(Event, frozen=True, kw_only=True):
    """A subagent's own history gained ``content`` (entry ``index`` of it): its task, an
    answer, its calls' results. ``parent_id`` names the delegation; the store keeps it
    under that call, and it is never part of the conversation's history."""

    agent: str
    index: int
    content: Content


class HistoryCompressed(Event, frozen=True, kw_only=True):
    """Compression replaced older history with a summary (before and after tokens)."""

    tokens_before: int
    tokens_after: int


class LoopDetected(Event, frozen=True, kw_only=True):
    """The model repeated itself and the prompt was stopped."""

    message: str


class ErrorOccurred(Event, frozen=True, kw_only=True):
    """Something the person must hear of (an error or a warning), with a hint when there is one."""

    message: str
    kind: str = "error"
    hint: str | None = None
    """What to do next."""


class BudgetAsked(Event, frozen=True, kw_only=True):
    """A cap stops the next model call and a person is asked (the TUI): answer with
    ``bus.decide(correlation_id, …)`` — allow once with ``raise_usd`` raises the cap by
    that much, allow for the session runs ``model`` without a price, reject stops."""

    correlation_id: str
    kind: Literal["session", "daily", "unpriced"]
    message: str
    """What was spent and the cap, or which model has no price and how to give it one."""
    model: str
    spent: float
    cap: float | None


class AgentFinished(Event, frozen=True, kw_only=True):
    """The prompt's loop ended."""

    reason: TerminateReason
    text: str
    usage: Usage = field(default_factory=Usage)
    turns: int = 0
    duration_ms: float = 0.0
    usage_by_model: dict[str, Usage] = field(default_factory=dict)
    error: str | None = None
    output: Any = None
    """Task mode: the validated complete_task output."""
    cost: float | None = None
    """USD for the whole prompt (every model call priced); None when none had a price."""
    exit_code: int = 0
    """The process exit code this ending means (0, 1, 41 auth, 53 turn limit, 130
    cancelled…): the engine classifies it once, headless only reports it."""
    usage_by_agent: dict[str, Usage] = field(default_factory=dict)
    """Subagents' tokens by agent name (already in ``usage``)."""
    cost_by_agent: dict[str, float] = field(default_factory=dict)
    """Subagents' USD by agent name, where priced (already in ``cost``)."""
    turns_by_agent: dict[str, int] = field(default_factory=dict)
    """Subagents' model calls by agent name (not in ``turns``: those are the prompt's own)."""
    fallbacks: tuple[ModelFallback, ...] = ()
    """The model switches this prompt took (each one allowed: ``agent.fallback``)."""


class McpServerChanged(Event, frozen=True, kw_only=True):
    """An MCP server's state changed (starting, ready, failed, disabled, stopped)."""

    server: str
    status: str
    transport: str
    tools: tuple[str, ...] = ()
    reason: str = ""


class QuotaShare(Struct, frozen=True):
    """What is left of one model's quota: a share (0-1, None when not said) and its reset."""

    model: str
    remaining: float | None
    resets: str = ""
    """When the share is full again (RFC 3339, as the server gave it), or empty."""


def quota_lines(quota: tuple[QuotaShare, ...] | None) -> list[str]:
    """The quota left per model, worded alike in ``auth status``, ``/stats`` and the pane."""
    if quota is None:
        return ["quota: unknown"]
    if not quota:
        return ["quota: no limits reported"]
    lines = []
    for share in quota:
        left = "unknown" if share.remaining is None else f"{share.remaining:.0%} left"
        when = f", resets {share.resets}" if share.resets else ""
        lines.append(f"{share.model}: {left}{when}")
    return lines


class AccountStatus(Event, frozen=True, kw_only=True):
    """The Google account behind ``code-assist``: who, which project and tier, quota left."""

    email: str
    project: str
    tier: str
    quota: tuple[QuotaShare, ...] | None = None
    """None: unknown (the quota call failed or was not made) — never an invented number."""


class RateLimitsSeen(Event, frozen=True, kw_only=True):
    """A response said how much of the provider's allowance is left (its headers)."""

    limits: RateLimits


class RateLimitNear(Event, frozen=True, kw_only=True):
    """The next model call would take a limit below the warning share: said once per
    limit until it resets, before that call."""

    limit: str
    """Which limit (``requests``, ``tokens``, a model's quota…)."""
    message: str


class ProviderProgress(Event, frozen=True, kw_only=True):
    """The provider is busy with something slower than a request (setting up an account)."""

    message: str


class HookRan(Event, frozen=True, kw_only=True):
    """A hook (Gemini CLI's format) ran: every run is visible, its outcome said."""

    hook_event: str
    """SessionStart, BeforeTool, …"""
    hook: str
    """Its name, or its command."""
    outcome: str
    """ok, blocked, asked, rewrote, context, failed or timed_out."""
    message: str = ""
    """The reason, the warning or the hook's systemMessage."""
    call_id: str | None = None
    """The tool call it was about (BeforeTool)."""
    duration_ms: float = 0.0
    sandboxed: bool | None = None
    """Under ``-s``: True for a project's hook (run in the sandbox), False for the person's
    own (run outside it); None when the session has no sandbox."""

    def summary(self) -> str:
        """One line for a transcript or stderr."""
        why = f": {self.message}" if self.message else ""
        where = {
            None: "",
            True: " (in the sandbox)",
            False: " (your own hook: outside the sandbox)",
        }
        return f"hook {self.hook_event} {self.hook} {self.outcome}{where[self.sandboxed]}{why}"
