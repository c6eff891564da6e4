"""Agent rows: what runs (or ran) in a folder, for ``gemtui agents`` in another terminal.

One row per agent run, keyed by its id (a session's id; a background subagent's is its
session's id, ``/`` and the delegating call). The runner writes it when the agent starts
and whenever its state changes; the row of a run whose process is gone while it said
it was running reads as ``gone``.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gemtui.store.store import StoreCore

__all__ = ["RUNNING_STATES", "AgentRow", "recent_agents", "save_agent"]

RUNNING_STATES = frozenset({"working", "waiting_for_you", "idle"})
"""States of a run whose process is still expected to be alive."""


@dataclass(frozen=True)
class AgentRow:
    """One agent run as stored."""

    id: str
    state: str
    workspace: str
    started: float
    pid: int = 0
    session_id: str = ""
    parent: str | None = None
    name: str = ""
    task: str = ""
    branch: str | None = None
    provider: str = ""
    model: str = ""
    ended: float | None = None
    tokens: int = 0
    cost: float | None = None
    error: str | None = None
    updated: float = 0.0

    def as_json(self) -> dict[str, Any]:
        """The row for ``gemtui agents --json`` (state ``gone`` for a vanished process)."""
        return asdict(self)

    def checked(self) -> AgentRow:
        """The row, with ``gone`` for a run said running whose process no longer exists."""
        if self.state not in RUNNING_STATES or _alive(self.pid):
            return self
        return replace(self, state="gone", error=self.error or "the process is gone")


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


_COLUMNS = tuple(f.name for f in fields(AgentRow))


def save_agent(store: StoreCore, row: AgentRow) -> None:
    """Insert or update the agent's row (``updated`` is now)."""
    row = replace(row, updated=time.time(), pid=row.pid or os.getpid())
    values = [getattr(row, name) for name in _COLUMNS]
    names = ", ".join(_COLUMNS)
    marks = ", ".join("?" for _ in _COLUMNS)
    sets = ", ".join(f"{n} = excluded.{n}" for n in _COLUMNS if n != "id")
    with store._tx() as conn:
        conn.execute(
            f"INSERT INTO agents ({names}) VALUES ({marks}) ON CONFLICT(id) DO UPDATE SET {sets}",
            values,
        )


def recent_agents(store: StoreCore, workspace: str, *, limit: int = 50) -> list[AgentRow]:
    """The folder's agents: every one still running, then the latest others, newest first."""
    names = ", ".join(_COLUMNS)
    rows = store._query(
        f"SELECT {names} FROM agents WHERE workspace = ? ORDER BY updated DESC LIMIT ?",
        (workspace, max(limit, 1) * 4),
    )
    found = [AgentRow(*row).checked() for row in rows]
    running = [r for r in found if r.state in RUNNING_STATES]
    others = [r for r in found if r.state not in RUNNING_STATES]
    return (running + others)[: max(limit, len(running))]
