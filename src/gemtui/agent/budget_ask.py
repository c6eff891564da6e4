"""What the agent loop does when a cap stops the next model call.

Headless (and ACP, and any agent no person watches) the prompt ends with
``FatalBudgetError`` (exit 54). When a person answers (``Budget.asks``: the TUI showing
the session), the loop publishes ``BudgetAsked`` and waits for the decision, the way a
tool call waits for its approval: a raise lets the refused call start now, so the prompt
goes on from where it stopped; going on without a price runs that model unpriced for the
session; stop (or nothing but a cancel) ends the prompt as headless would.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import Awaitable, Callable, Mapping

from gemtui.agent.budget import Budget, Reached
from gemtui.agent.cancellable import until_cancelled
from gemtui.agent.run_state import RunState
from gemtui.bus import BudgetAsked, Decision, ErrorOccurred, EventBus, TerminateReason
from gemtui.errors import FatalBudgetError

__all__ = ["budget_stop", "compressed"]


async def budget_stop(
    budget: Budget,
    bus: EventBus,
    model: str,
    prices: Mapping[str, float],
    cancel: asyncio.Event,
    state: RunState,
) -> TerminateReason | None:
    """Why the prompt ends before the next call of ``model`` (None: the call may start).

    Asks again after each answer: a raise too small for what was spent, or a daily cap
    reached behind the session's, is asked about in turn."""
    while (reached := budget.reached(model, prices)) is not None:
        if not budget.asks:
            return _refuse(bus, state, reached)
        decision = await _ask(bus, reached, cancel)
        if decision is None:
            return TerminateReason.TIMEOUT if state.timed_out else TerminateReason.ABORTED
        if not decision.decision.allows:
            return _refuse(bus, state, reached)
        if reached.kind == "unpriced":
            budget.unpriced_ok.add(reached.model)
        elif decision.raise_usd is not None and _positive(decision.raise_usd):
            budget.raise_cap(reached.kind, decision.raise_usd)
    return None


async def compressed(
    compress: Callable[[asyncio.Event], Awaitable[bool]],
    budget: Budget | None,
    bus: EventBus,
    model: str,
    prices: Mapping[str, float],
    cancel: asyncio.Event,
    state: RunState,
) -> TerminateReason | None:
    """Compress the history before a turn, then check the caps again: compression is a
    model call of its own, and the turn must not start past a cap it reached. Why the
    prompt ends (a cancel meanwhile, a cap), or None: the turn may start."""
    if not await compress(cancel):
        return TerminateReason.TIMEOUT if state.timed_out else TerminateReason.ABORTED
    if budget is None:
        return None
    return await budget_stop(budget, bus, model, prices, cancel, state)


def _refuse(bus: EventBus, state: RunState, reached: Reached) -> TerminateReason:
    state.error = FatalBudgetError(reached.message)  # no model call starts past a cap: 54
    bus.emit(ErrorOccurred, message=reached.message, kind="FatalBudgetError")
    return TerminateReason.ERROR


async def _ask(bus: EventBus, reached: Reached, cancel: asyncio.Event) -> Decision | None:
    """The person's answer; None when the prompt was cancelled (or timed out) first."""
    correlation_id = f"budget-{uuid.uuid4().hex[:12]}"
    answer = bus.await_decision(correlation_id)

    async def answered() -> Decision:
        return await answer

    bus.emit(
        BudgetAsked,
        correlation_id=correlation_id,
        kind=reached.kind,
        message=reached.message,
        model=reached.model,
        spent=reached.spent,
        cap=reached.cap,
    )
    finished = await until_cancelled(answered(), cancel)
    if finished is None:
        answer.cancel()  # no longer pending: a late answer is told so
        return None
    return finished.value


def _positive(usd: float) -> bool:
    return math.isfinite(usd) and usd > 0
