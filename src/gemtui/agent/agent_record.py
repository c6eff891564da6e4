"""Each agent run's row in the store, so ``gemtui agents`` elsewhere sees what runs here.

The fleet's agents are saved when their state changes (not on every token count); a
headless ``-p`` run saves itself as an agent too, working until its prompt ends. A store
that cannot be written costs the row, never the run.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from gemtui.agent.fleet_types import AgentInfo, AgentState, AgentStateChanged, final_state
from gemtui.redact import redact
from gemtui.store.agents import AgentRow

if TYPE_CHECKING:
    from gemtui.agent.fleet_types import FleetEvent
    from gemtui.agent.session import Session
    from gemtui.bus import AgentFinished
    from gemtui.store import SessionStore

__all__ = ["AgentLog", "agent_row", "record_run"]

log = logging.getLogger(__name__)


def agent_row(info: AgentInfo) -> AgentRow:
    """The stored row of a fleet agent: keyed by its session (its subagents under it)."""
    row_id = info.session_id
    if info.parent is not None:
        row_id = f"{info.session_id}/{info.id.partition('/')[2]}"
    return AgentRow(
        id=row_id,
        state=str(info.state),
        workspace=str(info.workspace),
        started=info.started,
        pid=os.getpid(),
        session_id=info.session_id,
        parent=info.session_id if info.parent is not None else None,
        name=info.name,
        task=info.task,
        branch=info.branch,
        provider=info.provider,
        model=info.model,
        ended=info.ended,
        tokens=info.tokens,
        cost=info.cost,
        error=info.error,
    )


def _save(store: SessionStore | None, row: AgentRow) -> None:
    if store is None:
        return
    # a task or an error may quote a key (a server echoing its header): masked, as the
    # transcript is, before it reaches the disk
    row = replace(row, task=redact(row.task), error=redact(row.error) if row.error else row.error)
    try:
        store.save_agent(row)
    except (sqlite3.Error, OSError) as exc:  # the run goes on unlisted
        log.warning("cannot save agent %s: %s", row.id, exc)


class AgentLog:
    """A fleet subscriber saving each agent's row when its state changes."""

    def __init__(self, store_of: Callable[[str], SessionStore | None]) -> None:
        self.store_of = store_of

    def __call__(self, event: FleetEvent) -> None:
        if not isinstance(event, AgentStateChanged):
            return
        info = event.agent
        if event.previous is info.state and info.ended is None:
            return  # tokens or a model: saved with the next change of state
        _save(self.store_of(info.id), agent_row(info))


def record_run(
    store: SessionStore | None, session: Session, task: str
) -> Callable[[AgentFinished | None], None]:
    """Save a headless run as a working agent now; the function returned saves its end
    (None: it ended without an answer, as failed)."""
    row = AgentRow(
        id=session.id,
        state=str(AgentState.WORKING),
        workspace=str(session.workspace.root),
        started=time.time(),
        session_id=session.id,
        name="headless",
        task=task,
        provider=session.provider.name,
        model=session.model,
    )
    _save(store, row)

    def finish(done: AgentFinished | None) -> None:
        state: AgentState = AgentState.FAILED
        error: str | None = "it ended without an answer"
        if done is not None:
            state, error = final_state(done)
        _save(
            store,
            replace(
                row,
                state=str(state),
                error=error,
                ended=time.time(),
                tokens=done.usage.total if done is not None else 0,
                cost=done.cost if done is not None else None,
                model=session.model,
            ),
        )

    return finish
