"""The fleet's values: an agent's state and snapshot, a queued approval, the events.

Plain frozen values (no Textual, no session): what the agent view renders and what the
fleet publishes to its subscribers. ``gemtui.agent.fleet`` re-exports every name.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from gemtui.bus import AgentFinished, TerminateReason, ToolCallSnapshot
from gemtui.errors import GemtuiError

if TYPE_CHECKING:
    from gemtui.agent.session import Session
    from gemtui.agent.subagent_background import BackgroundRun

__all__ = [
    "AgentInfo",
    "AgentRemoved",
    "AgentState",
    "AgentStateChanged",
    "ApprovalsChanged",
    "FleetCounts",
    "FleetEvent",
    "FleetLimitReached",
    "FrontChanged",
    "PendingApproval",
    "final_state",
    "session_info",
    "subagent_info",
]


class AgentState(StrEnum):
    """Where an agent is, as the agent view shows it."""

    IDLE = "idle"
    """No prompt running and none run yet (the front session before its first prompt)."""
    WORKING = "working"
    WAITING_FOR_YOU = "waiting_for_you"
    """A call of this agent (or of a subagent it started) awaits approval."""
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def running(self) -> bool:
        """Working or waiting: it counts against ``[agents] max_parallel``."""
        return self in (AgentState.WORKING, AgentState.WAITING_FOR_YOU)

    @property
    def finished(self) -> bool:
        """Done, failed or cancelled: it may be removed."""
        return self in (AgentState.DONE, AgentState.FAILED, AgentState.CANCELLED)


@dataclass(frozen=True)
class AgentInfo:
    """A snapshot of one agent: what a row of the agent view shows."""

    id: str
    """The fleet's id for the agent (``a1``, ``a2``…; a background subagent: its
    parent's id, ``/`` and the delegating call's id)."""
    name: str
    task: str
    state: AgentState
    provider: str
    model: str
    workspace: Path
    session_id: str
    started: float
    """Wall-clock time (``time.time()``) it was started."""
    ended: float | None = None
    branch: str | None = None
    """The worktree's branch, when it runs in one."""
    tokens: int = 0
    cost: float | None = None
    waiting: int = 0
    """How many of its calls await approval."""
    parent: str | None = None
    """For a background subagent: the id of the agent that started it."""
    error: str | None = None
    """Why it failed (or what stopped it), in one line."""
    approval_mode: str = "default"

    def elapsed(self, now: float | None = None) -> float:
        """Seconds it ran (until now while running)."""
        end = self.ended if self.ended is not None else (time.time() if now is None else now)
        return max(0.0, end - self.started)


@dataclass(frozen=True)
class PendingApproval:
    """One confirmation waiting in the fleet's queue, labelled with who asks."""

    agent_id: str
    """The fleet agent whose session asked (a subagent's request: its session's agent)."""
    agent_name: str
    """The agent's name, or the subagent's when one asked (``call.confirmation.agent``)."""
    task: str
    workspace: Path
    correlation_id: str
    call: ToolCallSnapshot

    @property
    def key(self) -> tuple[str, str]:
        """What identifies it: a correlation id alone is unique only within one session."""
        return (self.agent_id, self.correlation_id)


@dataclass(frozen=True)
class FleetCounts:
    """What the status line shows: how many work and how many wait for you."""

    working: int
    waiting: int
    total: int


@dataclass(frozen=True)
class AgentStateChanged:
    """An agent's snapshot changed (state, tokens, cost, model or waiting count)."""

    agent: AgentInfo
    previous: AgentState | None
    """Its state before (None: the agent is new)."""


@dataclass(frozen=True)
class AgentRemoved:
    """An agent was removed from the fleet (its session closed)."""

    agent_id: str


@dataclass(frozen=True)
class ApprovalsChanged:
    """The queue changed; ``pending`` is all of it, oldest first."""

    pending: tuple[PendingApproval, ...]


@dataclass(frozen=True)
class FrontChanged:
    """Another agent is in front (None: no agent left)."""

    agent_id: str | None


FleetEvent = AgentStateChanged | AgentRemoved | ApprovalsChanged | FrontChanged


class FleetLimitReached(GemtuiError):
    """Starting one more agent would pass ``[agents] max_parallel``: refused, not queued."""


_FINAL = {
    TerminateReason.GOAL: AgentState.DONE,
    TerminateReason.ABORTED: AgentState.CANCELLED,
}


def final_state(
    done: AgentFinished, *, needs_output: bool = False
) -> tuple[AgentState, str | None]:
    """An ended prompt's state and, unless done, why (``needs_output``: a subagent that
    stopped without its report failed)."""
    state = _FINAL.get(done.reason, AgentState.FAILED)
    if state is AgentState.DONE and (done.exit_code or (needs_output and done.output is None)):
        state = AgentState.FAILED
    if state is AgentState.DONE:
        return state, None
    return state, done.error or str(done.reason)


def subagent_info(parent: AgentInfo, run: BackgroundRun) -> AgentInfo:
    """The row of a background subagent, listed under the agent that started it."""
    return AgentInfo(
        id=f"{parent.id}/{run.call_id}",
        name=run.agent,
        task=run.task,
        state=AgentState.WORKING,
        provider=parent.provider,
        model=run.model or parent.model,
        workspace=parent.workspace,
        session_id=parent.session_id,
        started=time.time(),
        branch=parent.branch,
        parent=parent.id,
        approval_mode=parent.approval_mode,
    )


def session_info(agent_id: str, name: str, session: Session, branch: str | None) -> AgentInfo:
    """The row of an agent that is a whole session, before its first prompt."""
    return AgentInfo(
        id=agent_id,
        name=name,
        task="",
        state=AgentState.IDLE,
        provider=session.provider.name,
        model=session.model,
        workspace=session.workspace.root,
        session_id=session.id,
        started=time.time(),
        branch=branch,
        approval_mode=session.approval_mode,
    )
