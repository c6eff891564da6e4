"""The engine's ``Fleet`` as the agent view's ``AgentFleet`` (no Textual).

A thin translation: ``AgentInfo`` to ``AgentRow``, ``FleetEvent`` to ``FleetNews``, the
view's new-agent form to ``Fleet.start`` with this app's flags. A new worktree comes from
``open_worktree`` (the ``-w`` machinery, handed in by the launcher); without one the
form's checkbox says it cannot be honoured rather than silently working in the folder.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import structs

from gemtui.agent.fleet import (
    AgentInfo,
    AgentState,
    ApprovalsChanged,
    Fleet,
    FleetEvent,
    FleetLimitReached,
)
from gemtui.bus.values import ToolCallState
from gemtui.errors import GemtuiError
from gemtui.tui.agent_rows import (
    AgentRequest,
    AgentRow,
    CallChanged,
    FleetNews,
    RowsChanged,
    StartRefused,
)
from gemtui.tui.agent_rows import AgentState as RowState

if TYPE_CHECKING:
    from gemtui.agent.assembly import RunOptions
    from gemtui.agent.session import Session
    from gemtui.bus.events import ToolCallSnapshot
    from gemtui.bus.values import Decision

__all__ = ["EngineFleet", "WorktreeOpener"]

log = logging.getLogger(__name__)

WorktreeOpener = Callable[[Path, str], tuple[Path, str]]
"""(project, task) → (worktree path, branch): makes the worktree a new agent works in."""

_LEFT = ToolCallState.SCHEDULED
"""The state a call that left the fleet's queue is shown in: no longer awaiting approval."""

_STATES: dict[AgentState, RowState] = {
    AgentState.IDLE: "idle",
    AgentState.WORKING: "working",
    AgentState.WAITING_FOR_YOU: "waiting",
    AgentState.DONE: "done",
    AgentState.FAILED: "failed",
    AgentState.CANCELLED: "cancelled",
}


def row_of(info: AgentInfo, home: Path | None = None) -> AgentRow:
    """One agent's snapshot as the view's row (the workspace shortened with ``~``)."""
    home = Path.home() if home is None else home
    try:
        where = "~/" + str(info.workspace.relative_to(home))
    except ValueError:
        where = str(info.workspace)
    return AgentRow(
        id=info.id,
        task=info.task or info.name,
        state=_STATES[info.state],
        provider=info.provider,
        model=info.model,
        started=info.started,
        tokens=info.tokens,
        cost=info.cost,
        workspace=where,
        branch=info.branch,
        ended=info.ended,
    )


class EngineFleet:
    """``AgentFleet`` over ``gemtui.agent.fleet.Fleet``."""

    def __init__(
        self,
        fleet: Fleet,
        options: RunOptions,
        *,
        open_worktree: WorktreeOpener | None = None,
    ) -> None:
        self.fleet = fleet
        self.options = options
        """The app's flags: a new agent is started with them (its model may differ)."""
        self.open_worktree = open_worktree
        self._limit: str | None = None
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def front_id(self) -> str:
        return self.fleet.front or ""

    @property
    def limit_note(self) -> str | None:
        running = sum(1 for info in self.fleet.agents() if info.state.running)
        if running < self.fleet.max_parallel:
            self._limit = None
        return self._limit

    def rows(self) -> Sequence[AgentRow]:
        return [row_of(info) for info in self.fleet.agents()]

    def session_of(self, agent_id: str) -> Session:
        return self.fleet.session(agent_id)

    def bring_to_front(self, agent_id: str) -> None:
        self.fleet.bring_to_front(agent_id)

    def start(self, request: AgentRequest) -> str:
        # a new conversation: never the session this app resumed, nor its opening prompt
        options, branch = replace(self.options, resume=None, prompt=None), None
        if request.new_worktree:
            if self.open_worktree is None:
                raise StartRefused("A new worktree cannot be made here: start it without one.")
            try:
                path, branch = self.open_worktree(options.workspace, request.task)
            except Exception as exc:  # not a git checkout, git refused: said, nothing runs
                raise StartRefused(f"No worktree for the agent: {exc}") from exc
            options = replace(options, workspace=path)
        if request.model:
            options = replace(options, model=request.model)
        try:
            return self.fleet.start(request.task, options, branch=branch)
        except FleetLimitReached as exc:
            self._limit = str(exc)
            raise StartRefused(str(exc)) from exc
        except GemtuiError as exc:  # it could not be built: said in the view, nothing runs
            said = getattr(exc, "message", None) or str(exc)
            raise StartRefused(f"The agent was not started: {said}") from exc

    def stop(self, agent_id: str) -> None:
        self.fleet.stop(agent_id)

    def remove(self, agent_id: str) -> None:
        task = asyncio.get_running_loop().create_task(self.fleet.remove(agent_id))
        self._closing.add(task)  # kept until done: its session closes in the background
        task.add_done_callback(self._closing.discard)

    def decide(self, agent_id: str, correlation_id: str, decision: Decision) -> bool:
        return self.fleet.decide(agent_id, correlation_id, decision)

    async def close_background(self) -> None:
        front = self.front_id
        for info in self.fleet.agents():
            if info.id == front or info.parent is not None:
                continue  # a background subagent ends with its parent
            try:
                self.fleet.stop(info.id)
                await self.fleet.wait(info.id)
                await self.fleet.remove(info.id)
            except Exception:  # one agent's trouble must not keep the app from quitting
                log.exception("agent %s did not close", info.id)

    def subscribe(self, listener: Callable[[FleetNews], None]) -> Callable[[], None]:
        asked: dict[tuple[str, str], ToolCallSnapshot] = {}

        def forward(event: FleetEvent) -> None:
            if isinstance(event, ApprovalsChanged):
                now = {(p.agent_id, p.call.call_id): p.call for p in event.pending}
                for (agent_id, _), call in asked.items():
                    if (agent_id, call.call_id) not in now:  # answered or its agent stopped
                        listener(CallChanged(agent_id, structs.replace(call, state=_LEFT)))
                for (agent_id, _), call in now.items():
                    listener(CallChanged(agent_id, call))
                asked.clear()
                asked.update(now)
            listener(RowsChanged())

        return self.fleet.subscribe(forward)
