"""Where the money went: every stored model call since a moment, by day, model and agent.

The store keeps tokens, not dollars (a price may be corrected later, and
``[prices."MODEL"]`` may say otherwise): ``gemtui usage`` and ``/usage`` price these
rows with the engine's price table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.store.store import StoreCore

__all__ = ["MAIN_AGENT", "SpendRow", "spend_since"]

MAIN_AGENT = "main"
"""The agent name of a conversation's own calls (a subagent's carry its name)."""


@dataclass(frozen=True)
class SpendRow:
    """One day's calls of one model by one agent, summed."""

    day: str
    """Local date, ``YYYY-MM-DD``."""
    model: str
    agent: str
    calls: int
    input: int
    output: int
    thoughts: int
    cached: int


def spend_since(store: StoreCore, since: float) -> list[SpendRow]:
    """Model calls since ``since`` (epoch seconds) in every session, summed per local
    day, model and agent (a subagent's calls name it through their delegation)."""
    rows = store._query(
        "SELECT date(u.created, 'unixepoch', 'localtime'), u.model,"
        " CASE WHEN u.parent_call IS NULL THEN ? ELSE coalesce(nullif(a.agent, ''), 'subagent')"
        " END, count(*), sum(u.input), sum(u.output), sum(u.thoughts), sum(u.cached)"
        " FROM usage u LEFT JOIN (SELECT session_id, parent_call, max(agent) AS agent"
        " FROM subagent_messages GROUP BY session_id, parent_call) a"
        " ON a.session_id = u.session_id AND a.parent_call = u.parent_call"
        " WHERE u.created >= ? GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
        (MAIN_AGENT, since),
    )
    return [SpendRow(*row) for row in rows]
