"""Where the money went, priced: the store's model calls of the last days, by day, model
and agent, at the prices in force, each model's price said with where it came from.

One report for ``gemtui usage`` (text or ``--json``) and the TUI's ``/usage``, so both
say the same figures. A call with no known price adds nothing to a total and is listed
under ``unpriced``: it is never counted as $0.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gemtui.agent.prices import PriceBook, cost_of, price_for, price_origin
from gemtui.bus.events import Usage

if TYPE_CHECKING:
    from gemtui.store import SessionStore
    from gemtui.store.spend import SpendRow

__all__ = ["DEFAULT_DAYS", "MAX_DAYS", "SpendLine", "UsageReport", "usage_report"]

DEFAULT_DAYS = 30
"""How far back ``gemtui usage`` and ``/usage`` look unless told."""
MAX_DAYS = 3660
"""Ten years: more than any store holds, and a bound on the rows of ``per_day``."""


@dataclass
class SpendLine:
    """Calls, tokens and USD of one model, one agent or one day."""

    name: str
    calls: int = 0
    tokens: int = 0
    cost: float | None = None
    """None while no call of it had a known price."""

    def add(self, calls: int, tokens: int, cost: float | None) -> None:
        self.calls += calls
        self.tokens += tokens
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost

    def as_json(self, key: str) -> dict[str, Any]:
        cost = 0.0 if not self.calls else self.cost  # nothing called, nothing spent
        return {key: self.name, "calls": self.calls, "tokens": self.tokens, "cost_usd": cost}


@dataclass
class UsageReport:
    """The last ``days`` days' spend, as every view shows it."""

    days: int
    since: str
    """The first day counted (local date)."""
    per_day: list[SpendLine]
    """Every day of the window, oldest first, days without calls included."""
    per_model: list[SpendLine]
    per_agent: list[SpendLine]
    rows: list[tuple[SpendRow, float | None]]
    """Each stored day, model and agent with its cost."""
    prices: dict[str, dict[str, Any]]
    """Each model's price per million tokens and its ``source`` (None: no price known)."""

    @property
    def total(self) -> float:
        return sum(day.cost or 0.0 for day in self.per_day)

    @property
    def unpriced(self) -> list[str]:
        return sorted(model for model, price in self.prices.items() if price["source"] is None)

    def as_json(self) -> dict[str, Any]:
        """What ``gemtui usage --json`` prints."""
        return {
            "days": self.days,
            "since": self.since,
            "total_usd": self.total,
            "per_day": [d.as_json("day") for d in self.per_day],
            "per_model": [m.as_json("model") for m in self.per_model],
            "per_agent": [a.as_json("agent") for a in self.per_agent],
            "rows": [
                {"day": r.day, "model": r.model, "agent": r.agent, "calls": r.calls}
                | {"tokens": _tokens(r), "cost_usd": cost}
                for r, cost in self.rows
            ],
            "prices": self.prices,
            "unpriced": self.unpriced,
        }


def _tokens(row: SpendRow) -> int:
    return row.input + row.output + row.thoughts


def _by_cost(line: SpendLine) -> tuple[float, str]:
    return (-(line.cost or 0.0), line.name)


def usage_report(
    store: SessionStore,
    days: int = DEFAULT_DAYS,
    today: dt.date | None = None,
    prices: PriceBook | None = None,
) -> UsageReport:
    """The spend of the ``days`` days up to ``today`` (local), priced now: the built-in
    table under ``prices`` (the reader's ``[prices."MODEL"]``; a provider's flat prices
    do not apply, the store not saying each call's provider)."""
    own = prices.models_only() if prices is not None else None
    today = today or dt.date.today()
    first = today - dt.timedelta(days=days - 1)
    since = dt.datetime.combine(first, dt.time()).timestamp()
    per_day = {
        (first + dt.timedelta(days=i)).isoformat(): SpendLine(
            (first + dt.timedelta(days=i)).isoformat()
        )
        for i in range(days)
    }
    models: dict[str, SpendLine] = {}
    agents: dict[str, SpendLine] = {}
    rows: list[tuple[SpendRow, float | None]] = []
    used: dict[str, dict[str, Any]] = {}
    for row in store.spend(since):
        price = price_for(row.model, own)
        used[row.model] = {**(price or {}), "source": price_origin(row.model, own)}
        usage = Usage(input=row.input, output=row.output, thoughts=row.thoughts, cached=row.cached)
        cost = cost_of(usage, price)
        rows.append((row, cost))
        for line in (
            per_day.setdefault(row.day, SpendLine(row.day)),
            models.setdefault(row.model, SpendLine(row.model)),
            agents.setdefault(row.agent, SpendLine(row.agent)),
        ):
            line.add(row.calls, _tokens(row), cost)
    return UsageReport(
        days=days,
        since=first.isoformat(),
        per_day=[per_day[day] for day in sorted(per_day) if day >= first.isoformat()],
        per_model=sorted(models.values(), key=_by_cost),
        per_agent=sorted(agents.values(), key=_by_cost),
        rows=rows,
        prices=used,
    )
