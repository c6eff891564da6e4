"""The agent loop's shapes: what it needs of the scheduler, its settings, and the state one
prompt and one turn carry (kept apart from ``executor`` so the loop reads as a loop)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct, field
from pydantic import BaseModel

from gemtui.agent.budget import Budget
from gemtui.agent.error_text import ErrorContext
from gemtui.agent.router import ModelRouter
from gemtui.bus import ModelFallback, TerminateReason, TurnFinished, Usage
from gemtui.wire import Content, FunctionCall, Part

if TYPE_CHECKING:  # loaded only when [agent] next_speaker_check is on
    from gemtui.agent.fallback import FallbackAsk, ProviderHop
    from gemtui.agent.next_speaker import NextSpeakerCheck

__all__ = [
    "MAX_AGENT_RETRIES",
    "AgentHooks",
    "ExecutorConfig",
    "Inbox",
    "RunState",
    "ScheduleOutcome",
    "ToolRunner",
    "TurnOutcome",
    "with_reports",
]

MAX_AGENT_RETRIES = 5
"""AfterAgent may send the agent back this often per prompt: a hook that always refuses
would otherwise loop forever (``stop_hook_active`` tells it it is a retry)."""


class Inbox(Protocol):
    """Reports of background subagents, for the conversation that started them."""

    def take(self) -> list[str]: ...

    def outstanding(self) -> bool: ...

    async def next_report(self, cancel: asyncio.Event) -> bool: ...


def with_reports(inbox: Inbox | None, message: Content) -> Content:
    """The next request's message with the background reports that arrived."""
    reports = inbox.take() if inbox is not None else []
    if not reports:
        return message
    return Content(role=message.role, parts=[*message.parts, *map(Part.from_text, reports)])


class ScheduleOutcome(Protocol):
    """What a batch of tool calls produced: the response parts, and whether it was cancelled."""

    @property
    def parts(self) -> list[Part]: ...

    @property
    def cancelled(self) -> bool: ...


class ToolRunner(Protocol):
    """What the executor needs of the scheduler."""

    async def run(
        self, calls: list[FunctionCall], *, cancel: asyncio.Event | None = None
    ) -> ScheduleOutcome: ...


class AgentHooks(Protocol):
    """What the loop asks of the session's hooks around a whole prompt (Gemini CLI's
    AfterAgent and PreCompress, and any hook's ``continue: false``)."""

    stopped: str | None
    """Why a hook answered ``continue: false`` during this prompt: the loop ends."""
    clear_context: bool
    """The last AfterAgent asked for ``clearContext``: the model forgets the conversation."""

    async def after_agent(self, prompt: str, response: str, *, retrying: bool) -> str | None:
        """The message to send the agent back with, or None when the answer stands."""
        ...

    async def advise(self, event: str, payload: dict[str, Any]) -> None: ...


class ExecutorConfig(Struct, frozen=True):
    """Limits and knobs of the agent loop (turns, window, compression, fallback, prices).

    A frozen value: a model or provider switch builds a new one (``msgspec.structs.replace``)
    and hands it to the executor whole, so no half-patched config is ever read."""

    max_turns: int = -1
    """Model turns per prompt; -1 is unbounded."""
    timeout: float | None = None
    """Seconds for the whole prompt."""
    grace_period: float = 60.0
    output_schema: type[BaseModel] | None = None
    """Set for task mode: the model must call complete_task with this output."""
    context_window: int = 1_048_576
    compression_threshold: float = 0.5
    compression_preserve: float = 0.3
    fallback: tuple[str, ...] = ()
    """Models to switch to, in order, when the current one keeps answering 429
    (``PROVIDER:MODEL`` for one on another provider)."""
    fallback_ask: FallbackAsk | None = None
    """Who decides a switch to ``fallback`` (the TUI's question, ``--fallback``); None:
    nobody, so the prompt ends with the error (``agent.fallback``)."""
    fallback_hop: ProviderHop | None = None
    """How a switch reaches another provider, lent by the session; None: none can."""
    prices: dict[str, float] = field(default_factory=dict)
    """The provider's ``prices`` from settings, on top of the known ones."""
    router: ModelRouter | None = None
    """``-m auto``: picks the model for each prompt before its first turn."""
    error_context: Callable[[], ErrorContext] | None = None
    """Who was asked for what, so a failed call is explained with its next step."""
    stream_loop_detection: bool = True
    """Cut an answer that repeats itself while streaming (``[chat] loop_detection``)."""
    next_speaker: NextSpeakerCheck | None = None
    """After a text-only answer, ask whether the model meant to go on (chat mode only)."""
    max_continues: int = 3
    """"Please continue." sent at most this often per prompt (the check can be wrong)."""
    budget: Budget | None = None
    """The session's spending caps: consulted before every model call (subagents share it)."""
    inbox: Inbox | None = None
    """Background subagents' reports: each joins the next request; the prompt does not
    end while one it started still runs."""
    agent_hooks: AgentHooks | None = None
    """The conversation's hooks (a subagent's loop has none of its own)."""


class TurnOutcome(Struct):
    """What one model turn left: its calls, its text, and why it ended the loop if it did."""

    calls: list[FunctionCall] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    reason: TerminateReason | None = None
    """Set when the turn ended the loop (cancel, error)."""


class RunState(Struct):
    """One prompt's running totals: turns, tokens and cost by model, the answer so far."""

    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    usage_by_model: dict[str, Usage] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)
    error: BaseException | None = None
    timed_out: bool = False
    cost: float | None = None
    """USD so far; None until a call had a known price."""
    exhausted: set[str] = field(default_factory=set)
    """Models this prompt already ran out of quota on (the settings' list stays whole)."""
    tried: set[str] = field(default_factory=set)
    """The same as ``PROVIDER:MODEL``: a fallback list may span providers."""
    fallbacks: list[ModelFallback] = field(default_factory=list)
    """The switches taken (``stats.fallbacks``)."""
    fallback_note: str = ""
    """Why no fallback was taken although one was left (said with the error)."""

    def add(self, model: str, usage: Usage, cost: float | None = None) -> None:
        """Count one model call's tokens (and its cost, when known) in this prompt."""
        self.usage = self.usage + usage
        self.usage_by_model[model] = self.usage_by_model.get(model, Usage()) + usage
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost

    def count_subagent(self, call: TurnFinished) -> None:
        """A subagent's model call counts in this prompt's tokens and cost: the person
        pays for it through this prompt."""
        self.add(call.model, call.usage, call.cost)
