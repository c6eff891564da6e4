"""A small fleet of real sessions for the agent view's Pilot tests.

Every agent is a real ``Session`` (its own mock model server, workspace, bus, scheduler
and policy); only the bookkeeping the engine's ``Fleet`` does is redone here, in the
shape of ``gemtui.tui.agent_rows.AgentFleet``, so the view is tested against the one
interface it reads. Decisions go to the asking session's own ``bus.decide``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from msgspec.structs import replace

from gemtui.agent.session import Session
from gemtui.bus import Event, ToolCallState, ToolCallStateChanged, TurnFinished
from gemtui.bus.values import Decision, TerminateReason
from gemtui.tui.agent_rows import (
    FINISHED,
    AgentRequest,
    AgentRow,
    CallChanged,
    FleetNews,
    RowsChanged,
    StartRefused,
)

STARTED = 1_000_000.0
"""Every agent's start time (the view's clock is pinned beside it)."""


@dataclass
class _Agent:
    session: Session
    row: AgentRow
    asking: set[str] = field(default_factory=set)
    task: asyncio.Task[Any] | None = None


class SessionsFleet:
    """``AgentFleet`` over sessions the test built; ``factory`` makes a new agent's."""

    def __init__(
        self,
        factory: Callable[[AgentRequest], Session] | None = None,
        *,
        max_parallel: int = 4,
    ) -> None:
        self.factory = factory
        self.max_parallel = max_parallel
        self.agents: dict[str, _Agent] = {}
        self.front = ""
        self.limit: str | None = None
        self.decided: list[tuple[str, str]] = []
        self._listeners: list[Callable[[FleetNews], None]] = []

    # -- set-up --------------------------------------------------------------------------
    def adopt(self, session: Session, task: str, *, where: str = "~/project") -> str:
        agent_id = f"a{len(self.agents) + 1}"
        row = AgentRow(
            agent_id, task, "idle", session.provider.name, session.model, STARTED, workspace=where
        )
        self.agents[agent_id] = _Agent(session, row)
        session.bus.subscribe(lambda event: self._on_event(agent_id, event))
        self.front = self.front or agent_id
        return agent_id

    def run(self, agent_id: str, prompt: str) -> None:
        """Send the agent its prompt in the background."""
        agent = self.agents[agent_id]
        self._set(agent, state="working")
        agent.task = asyncio.get_running_loop().create_task(self._send(agent, prompt))

    async def _send(self, agent: _Agent, prompt: str) -> None:
        done = await agent.session.send(prompt)
        state = {TerminateReason.GOAL: "done", TerminateReason.ABORTED: "cancelled"}
        self._set(agent, state=state.get(done.reason, "failed"), ended=STARTED + 65)

    def _on_event(self, agent_id: str, event: Event) -> None:
        agent = self.agents[agent_id]
        if isinstance(event, TurnFinished):
            cost = (agent.row.cost or 0.0) + (event.cost or 0.0)
            self._set(agent, tokens=agent.row.tokens + event.usage.total, cost=cost)
        if isinstance(event, ToolCallStateChanged):
            call = event.call
            if call.state == ToolCallState.AWAITING_APPROVAL:
                agent.asking.add(call.call_id)
            else:
                agent.asking.discard(call.call_id)
            if agent.row.state in ("working", "waiting"):
                self._set(agent, state="waiting" if agent.asking else "working")
            self._emit(CallChanged(agent_id, call, event.prompt_id))

    def _set(self, agent: _Agent, **changes: Any) -> None:
        agent.row = replace(agent.row, **changes)
        self._emit(RowsChanged())

    def _emit(self, news: FleetNews) -> None:
        for listener in list(self._listeners):
            listener(news)

    # -- AgentFleet ----------------------------------------------------------------------
    @property
    def front_id(self) -> str:
        return self.front

    @property
    def limit_note(self) -> str | None:
        return self.limit

    def rows(self) -> Sequence[AgentRow]:
        return [agent.row for agent in self.agents.values()]

    def session_of(self, agent_id: str) -> Session:
        return self.agents[agent_id].session

    def bring_to_front(self, agent_id: str) -> None:
        self.front = agent_id

    def start(self, request: AgentRequest) -> str:
        running = sum(a.row.state in ("working", "waiting") for a in self.agents.values())
        if running >= self.max_parallel:
            self.limit = f"{running} agents are already working ([agents] max_parallel = 1)"
            raise StartRefused(self.limit)
        assert self.factory is not None
        agent_id = self.adopt(self.factory(request), request.task)
        self.run(agent_id, request.task)
        return agent_id

    def stop(self, agent_id: str) -> None:
        self.agents[agent_id].session.cancel()

    def remove(self, agent_id: str) -> None:
        assert self.agents[agent_id].row.state in FINISHED
        del self.agents[agent_id]

    def decide(self, agent_id: str, correlation_id: str, decision: Decision) -> bool:
        self.decided.append((agent_id, correlation_id))
        return self.agents[agent_id].session.bus.decide(correlation_id, decision)

    def subscribe(self, listener: Callable[[FleetNews], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    async def close_background(self) -> None:
        for agent_id, agent in self.agents.items():
            if agent_id != self.front and agent.task is not None:
                agent.session.cancel()
        await self.settled()

    async def settled(self) -> None:
        """Wait for every background prompt."""
        tasks = [a.task for a in self.agents.values() if a.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)
