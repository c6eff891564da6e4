"""A spending cap that holds: ``--max-budget-usd``, ``[budget] session_usd`` and ``daily_usd``.

The budget listens to the session's bus for every model call's ``TurnFinished`` (a
subagent's, foreground or background, reaches the parent bus through ``ChildBus``) and
is told of the side calls that are not turns (router, next-speaker check, edit fixer).
The executor asks ``refusal`` before each model call starts: once the spend reaches a
cap, or the model has no known price while a cap is set (an unknown price is never $0),
the prompt ends with ``FatalBudgetError`` (exit 54), saying what was spent and the cap
— unless a person answers (the TUI): then ``budget_ask`` asks, raise or stop.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Literal

from msgspec import Struct, field

from gemtui.agent.prices import PriceBook, cost_of, price_for
from gemtui.bus import Event, EventBus, ModelRouted, TurnFinished, Usage
from gemtui.chat.turn import usage_from_metadata

if TYPE_CHECKING:
    from gemtui.store import SessionStore
    from gemtui.wire import GenerateContentResponse

__all__ = [
    "SIDE_CALL",
    "Budget",
    "Reached",
    "report_side_call",
    "reported_side_call",
    "spent_today",
]

SIDE_CALL = "SIDE_CALL"
"""``TurnFinished.finish_reason`` of a model call a tool made (edit fixer, web search):
views, the store and the budget count it; the prompt's totals take it like a subagent's."""


class Budget(Struct):
    """What this session spent and the caps it may not pass (None: no such cap)."""

    session_usd: float | None = None
    daily_usd: float | None = None
    spent_before_today: float = 0.0
    """Spent today by earlier sessions and agents, from the store."""
    spent: float = 0.0
    """Spent by this session, its side calls and its subagents."""
    prices: Mapping[str, float] = field(default_factory=dict)
    """The provider's ``prices`` from settings (for side calls priced here)."""
    unpriced: set[str] = field(default_factory=set)
    """Models that answered while no price was known for them."""
    provider: str = "NAME"
    """The provider whose settings a missing price goes in (named in the refusal)."""
    unpriced_ok: set[str] = field(default_factory=set)
    """Models a person chose to run without a price this session (the cap then counts
    only what has a price: an unknown price is never counted as $0)."""
    asks: bool = False
    """A person answers at a cap (the TUI showing this session): the call waits for a
    ``BudgetAsked`` decision instead of the prompt ending with exit 54."""

    @property
    def capped(self) -> bool:
        return self.session_usd is not None or self.daily_usd is not None

    def watch(self, bus: EventBus) -> None:
        """Count every model call the bus reports (the conversation's and subagents')."""
        bus.subscribe(self._seen)

    def _seen(self, event: Event) -> None:
        if isinstance(event, TurnFinished):
            self._add(event.model, event.cost)
        elif isinstance(event, ModelRouted):  # the router's own call, before any turn
            self.count(event.router_model, event.usage)

    def count(self, model: str, usage: Usage) -> float | None:
        """A side call (router, next speaker, edit fixer): priced and counted; its cost."""
        cost = cost_of(usage, price_for(model, self.prices))
        if usage.total or usage.input or usage.output:
            self._add(model, cost)
        return cost

    def _add(self, model: str, cost: float | None) -> None:
        if cost is None:
            self.unpriced.add(model)
        else:
            self.spent += cost

    def refusal(self, model: str, prices: Mapping[str, float] | None = None) -> str | None:
        """Why no model call may start now (None: it may)."""
        reached = self.reached(model, prices)
        return None if reached is None else reached.message

    def reached(self, model: str, prices: Mapping[str, float] | None = None) -> Reached | None:
        """Which cap stops the next call of ``model`` and why (None: it may start)."""
        if not self.capped:
            return None
        own = self.prices if prices is None else prices
        unknown = sorted(
            (self.unpriced | ({model} if price_for(model, own) is None else set()))
            - self.unpriced_ok
        )
        cap = self.session_usd if self.session_usd is not None else self.daily_usd
        if unknown:
            name = unknown[0]
            return Reached(
                "unpriced",
                f"Budget: no price is known for model {name!r}, so a cap cannot hold. Give it"
                f' a price in config.toml: [prices."{name}"] input = USD, output = USD, or'
                f" [providers.{self.provider}] prices = {{ input = USD,"
                " output = USD, cached = USD } (per million tokens), or choose a priced model.",
                name,
                self.spent,
                cap,
            )
        if self.session_usd is not None and self.spent >= self.session_usd:
            return Reached(
                "session",
                f"Budget reached: this session spent ${self.spent:.4f} of its"
                f" ${self.session_usd:.4f} cap (--max-budget-usd / [budget] session_usd).",
                model,
                self.spent,
                self.session_usd,
            )
        today = self.spent_before_today + self.spent
        if self.daily_usd is not None and today >= self.daily_usd:
            return Reached(
                "daily",
                f"Budget reached: ${today:.4f} spent today of the ${self.daily_usd:.4f}"
                " daily cap ([budget] daily_usd).",
                model,
                today,
                self.daily_usd,
            )
        return None

    def raise_cap(self, kind: str, usd: float) -> None:
        """A person raised the ``session`` or ``daily`` cap by ``usd`` for this session
        (the settings keep theirs: the next session starts under the cap again)."""
        if kind == "session" and self.session_usd is not None:
            self.session_usd += usd
        elif kind == "daily" and self.daily_usd is not None:
            self.daily_usd += usd


class Reached(Struct, frozen=True):
    """A cap that stops the next model call: ``session``, ``daily``, or ``unpriced`` (a
    model with no known price under a cap: its spend cannot be counted)."""

    kind: Literal["session", "daily", "unpriced"]
    message: str
    """What was spent and the cap, or which model has no price and how to give it one."""
    model: str
    spent: float
    """This session's spend (``session``, ``unpriced``) or the day's (``daily``)."""
    cap: float | None


def spent_today(store: SessionStore | None, prices: Mapping[str, float], model: str) -> float:
    """USD spent since local midnight by every session and agent in the store.

    Each stored call is priced by its model; the provider's ``prices`` apply to the
    current ``model``'s calls. A call with no known price adds nothing here: the
    current session's unknown price is refused on its own."""
    if store is None:
        return 0.0
    midnight = time.mktime((*time.localtime()[:3], 0, 0, 0, 0, 0, -1))
    total = 0.0
    for row in store.usage_since(midnight):
        usage = Usage(input=row[1], output=row[2], thoughts=row[3], cached=row[4])
        other = prices.models_only() if isinstance(prices, PriceBook) else None
        cost = cost_of(usage, price_for(row[0], prices if row[0] == model else other))
        total += cost or 0.0
    return total


async def reported_side_call(
    stream: AsyncIterator[GenerateContentResponse],
    bus: EventBus,
    model: str,
    budget: Budget | None,
    prices: Mapping[str, float],
) -> AsyncIterator[GenerateContentResponse]:
    """A tool's one-off model call (edit fixer, web search), refused past a cap and
    reported as a ``SIDE_CALL`` ``TurnFinished``: its tokens are paid for like a turn's."""
    from gemtui.tools.base import ToolError

    if budget is not None and (why := budget.refusal(model, prices)):
        raise ToolError(why)
    metadata = None
    try:
        async for chunk in stream:
            metadata = chunk.usage_metadata or metadata
            yield chunk
    finally:
        if metadata is not None:
            report_side_call(bus, model, usage_from_metadata(metadata), prices)


def report_side_call(bus: EventBus, model: str, usage: Usage, prices: Mapping[str, float]) -> None:
    """Publish a call that is not a turn (compression, a tool's) as a ``SIDE_CALL``."""
    cost = cost_of(usage, price_for(model, prices))
    bus.emit(TurnFinished, finish_reason=SIDE_CALL, usage=usage, model=model, cost=cost)
