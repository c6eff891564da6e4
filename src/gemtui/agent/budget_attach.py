"""Giving a built session its spending caps (kept apart from ``budget``: this side knows
the session, the budget must not, or the executor's config would import the session)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from gemtui.agent.budget import Budget, spent_today

if TYPE_CHECKING:
    from gemtui.agent.session import Session
    from gemtui.config.settings import Settings
    from gemtui.store import SessionStore

__all__ = ["ask_at_caps", "attach_budget"]


def attach_budget(
    session: Session, settings: Settings, max_budget_usd: float | None, store: SessionStore | None
) -> Budget | None:
    """Give ``session`` its caps (the flag over ``[budget]``); None when none is set.

    The budget rides in the executor's config, which subagents' configs copy, and a
    model or provider switch keeps (``msgspec.structs.replace``)."""
    cap = settings.budget.session_usd if max_budget_usd is None else max_budget_usd
    daily = settings.budget.daily_usd
    if cap is None and daily is None:
        return None
    executor = session.executor
    prices = executor.config.prices  # the session's own book (per-model prices too)
    before = spent_today(store, prices, executor.chat.model) if daily is not None else 0.0
    budget = Budget(cap, daily, before, prices=prices, provider=session.provider.name)
    budget.watch(session.bus)
    executor.config = replace(executor.config, budget=budget)
    return budget


def ask_at_caps(session: Session, asks: bool = True) -> None:
    """A person watches ``session`` and answers ``BudgetAsked`` (the TUI, while it shows
    it): at a cap the prompt waits for the answer instead of ending with exit 54. Set by
    the front end that answers, and unset when it stops showing the session: an ask
    nobody sees would wait forever."""
    budget = session.executor.config.budget
    if budget is not None:
        budget.asks = asks
