"""Agents side by side: many full sessions in one app, and one approval queue for them all.

A ``Fleet`` owns N sessions, each built the one way (``trusted_run`` / ``build_session``
with its own ``RunOptions``: provider, model, approval mode, sandbox, workspace or
worktree, history and store record). Each prompt runs as a task on the one event loop;
the fleet follows each bus for the agent's state, tokens, cost and the calls it waits on.

The approval queue is the fleet's: every pending confirmation of every agent (and of the
background subagents they started) is one ``PendingApproval`` labelled with its agent,
task and workspace. A decision names the agent *and* the correlation id and reaches only
that agent's bus: two agents asking for one call stay two items; "allow for the session"
changes only the asking session's policy. Views subscribe with ``Fleet.subscribe``:
plain ``FleetEvent`` values, no Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gemtui.agent.agent_record import AgentLog
from gemtui.agent.fallback_attach import attach_fallback
from gemtui.agent.fleet_queue import ApprovalQueue
from gemtui.agent.fleet_types import (
    AgentInfo,
    AgentRemoved,
    AgentState,
    AgentStateChanged,
    ApprovalsChanged,
    FleetCounts,
    FleetEvent,
    FleetLimitReached,
    FrontChanged,
    PendingApproval,
    final_state,
    session_info,
    subagent_info,
)
from gemtui.bus import (
    AgentFinished,
    Decision,
    Event,
    ToolCallStateChanged,
    TurnFinished,
)
from gemtui.errors import GemtuiError

if TYPE_CHECKING:
    from gemtui.agent.assembly import Assembled, RunOptions
    from gemtui.agent.session import Session
    from gemtui.agent.subagent_background import BackgroundRun
    from gemtui.config.settings import Settings
    from gemtui.store import SessionStore

__all__ = [
    "AgentInfo",
    "AgentRemoved",
    "AgentState",
    "AgentStateChanged",
    "ApprovalsChanged",
    "Fleet",
    "FleetCounts",
    "FleetEvent",
    "FleetLimitReached",
    "FrontChanged",
    "PendingApproval",
]

log = logging.getLogger(__name__)


@dataclass
class _Agent:
    """The fleet's own record of one agent (``AgentInfo`` is its published snapshot)."""

    info: AgentInfo
    built: Assembled | None
    """The session and its store (None: a background subagent, run by its parent)."""
    task: asyncio.Task[AgentFinished | None] | None = None
    unsubscribe: Callable[[], None] | None = None
    subagent: BackgroundRun | None = None

    @property
    def session(self) -> Session | None:
        return self.built.session if self.built is not None else None


class Fleet:
    """The agents of one app: start, follow, stop, remove; one approval queue.

    Call its methods on the event loop the agents run on. ``start`` builds a session
    and sends its task at once; ``adopt`` takes a session a front end built itself (the
    TUI's own). Subscribe with ``subscribe`` for every change, as plain values.
    """

    def __init__(
        self, settings: Settings | None = None, *, max_parallel: int | None = None
    ) -> None:
        default = settings.agents.max_parallel if settings is not None else 4
        self.max_parallel = default if max_parallel is None else max_parallel
        """How many agents may run at once (``[agents] max_parallel``)."""
        self._agents: dict[str, _Agent] = {}
        self._queue = ApprovalQueue()
        self._listeners: list[Callable[[FleetEvent], None]] = []
        self._ids = itertools.count(1)
        self._front: str | None = None
        self.subscribe(AgentLog(self.store))  # rows for `gemtui agents` elsewhere

    # -- views -------------------------------------------------------------------------
    def subscribe(self, fn: Callable[[FleetEvent], None]) -> Callable[[], None]:
        """Call ``fn`` for every fleet event; returns the unsubscribe function."""
        self._listeners.append(fn)
        return lambda: self._listeners.remove(fn) if fn in self._listeners else None

    def agents(self) -> list[AgentInfo]:
        """Every agent, in the order they were started."""
        return [a.info for a in self._agents.values()]

    def get(self, agent_id: str) -> AgentInfo:
        """The agent's snapshot (``KeyError`` for an unknown id)."""
        return self._agents[agent_id].info

    def session(self, agent_id: str) -> Session:
        """The agent's session (``KeyError`` for an unknown id or a background subagent)."""
        session = self._agents[agent_id].session
        if session is None:
            raise KeyError(agent_id)
        return session

    def store(self, agent_id: str) -> SessionStore | None:
        """The store the agent's rows go to (a background subagent's: its parent's)."""
        agent = self._agents.get(agent_id.partition("/")[0])
        return agent.built.store if agent is not None and agent.built is not None else None

    def counts(self) -> FleetCounts:
        infos = self.agents()
        return FleetCounts(
            working=sum(1 for i in infos if i.state is AgentState.WORKING),
            waiting=sum(1 for i in infos if i.state is AgentState.WAITING_FOR_YOU),
            total=len(infos),
        )

    @property
    def front(self) -> str | None:
        """The id of the agent in front (the one the conversation view shows)."""
        return self._front

    def bring_to_front(self, agent_id: str) -> None:
        if agent_id not in self._agents:
            raise KeyError(agent_id)
        if agent_id != self._front:
            self._front = agent_id
            self._emit(FrontChanged(agent_id))

    # -- lifecycle ---------------------------------------------------------------------
    def start(
        self,
        task: str,
        options: RunOptions,
        *,
        name: str | None = None,
        branch: str | None = None,
        settings: Settings | None = None,
    ) -> str:
        """Build a session for ``options`` (trust decided as for any run) and send ``task``
        in the background; its id. ``FleetLimitReached`` past ``max_parallel``; a session
        that cannot be built raises ``FatalError``."""
        from gemtui.agent.assembly import trusted_run

        self._check_limit()
        run = trusted_run(options)
        built = run.build(settings)
        attach_fallback(built.session, None)  # never a switch unasked; the front one asks
        agent_id = self.adopt(built, name=name, branch=branch)
        self.send(agent_id, task)
        return agent_id

    def adopt(
        self,
        built: Assembled,
        *,
        name: str | None = None,
        branch: str | None = None,
        start: bool = True,
        spent: tuple[int, float | None] = (0, None),
    ) -> str:
        """Follow a session built elsewhere (the TUI's own); it becomes the front one if
        none is. ``start``: it starts saving and is said started here (False: the front
        end already did both). ``spent``: tokens and cost it already ran (the TUI's first
        prompt leaves before its fleet starts)."""
        session, agent_id = built.session, f"a{next(self._ids)}"
        info = session_info(agent_id, name or agent_id, session, branch)
        info = replace(info, tokens=spent[0], cost=spent[1])
        agent = _Agent(info, built)
        self._agents[agent_id] = agent
        agent.unsubscribe = session.bus.subscribe(lambda e: self._on_event(agent_id, e))
        session.agents.watch_background(lambda run: self._on_background(agent_id, run))
        if start:
            built.record()
            session.start()
        self._emit(AgentStateChanged(info, None))
        if self._front is None:
            self.bring_to_front(agent_id)
        return agent_id

    def send(self, agent_id: str, prompt: str) -> asyncio.Task[AgentFinished | None]:
        """Send the agent its (next) prompt in the background; the task ends with its
        ``AgentFinished`` (None if it was stopped before it began)."""
        agent = self._agents[agent_id]
        if agent.built is None:
            raise KeyError(agent_id)
        if agent.info.state.running:
            raise GemtuiError(f"{agent.info.name} is still working: stop it or wait")
        if agent.info.state is not AgentState.IDLE or agent.task is not None:
            self._check_limit()
        self._update(agent, task=prompt, state=AgentState.WORKING, ended=None, error=None)
        agent.task = asyncio.get_running_loop().create_task(
            self._run(agent, prompt), name=f"gemtui-agent-{agent_id}"
        )
        return agent.task

    def stop(self, agent_id: str) -> bool:
        """Cancel the agent's prompt (as Esc would); False when it was not running."""
        agent = self._agents[agent_id]
        if not agent.info.state.running:
            return False
        if agent.subagent is not None:
            agent.subagent.cancel()
            return True
        session = agent.session
        if session is not None and session.cancel_event is not None:
            session.cancel()
        elif agent.task is not None:  # not in its prompt yet: end the task itself
            agent.task.cancel()
        return True

    async def wait(self, agent_id: str) -> AgentInfo:
        """Wait until the agent's prompt ended; its snapshot then."""
        agent = self._agents[agent_id]
        if agent.task is not None:
            await asyncio.wait({agent.task})
        elif agent.subagent is not None:
            await agent.subagent.wait()
        return agent.info

    async def remove(self, agent_id: str) -> None:
        """Forget a finished (or idle) agent and close its session and store."""
        agent = self._agents[agent_id]
        if agent.info.state.running:
            raise GemtuiError(f"{agent.info.name} is still working: stop it first")
        for gone in [
            agent_id,
            *(a.info.id for a in self._agents.values() if a.info.parent == agent_id),
        ]:
            del self._agents[gone]
        if self._queue.drop(agent_id):
            self._emit(ApprovalsChanged(self._queue.items()))
        await self._close(agent)
        self._emit(AgentRemoved(agent_id))
        if self._front == agent_id:
            self._front = next(iter(self._agents), None)
            self._emit(FrontChanged(self._front))

    async def aclose(self) -> None:
        """Stop every agent and close every session (the app is ending)."""
        for agent_id in list(self._agents):
            self.stop(agent_id)
        for agent in list(self._agents.values()):
            if agent.task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await agent.task
        for agent in list(self._agents.values()):
            await self._close(agent)
        self._agents.clear()

    # -- the approval queue ------------------------------------------------------------
    def approvals(self) -> list[PendingApproval]:
        """Every pending confirmation of every agent, oldest first."""
        return list(self._queue.items())

    def decide(self, agent_id: str, correlation_id: str, decision: Decision) -> bool:
        """Answer one queued confirmation: it reaches only the bus of ``agent_id``'s
        session. False when that agent has no such request pending (a stale or
        misrouted answer is dropped, never tried on another agent)."""
        agent = self._agents.get(agent_id)
        session = agent.session if agent is not None else None
        if session is None or self._queue.get(agent_id, correlation_id) is None:
            return False
        return session.bus.decide(correlation_id, decision)

    # -- internals ---------------------------------------------------------------------
    def _check_limit(self) -> None:
        running = sum(
            1 for a in self._agents.values() if a.info.state.running and a.info.parent is None
        )
        if running >= self.max_parallel:
            raise FleetLimitReached(
                f"Not started: the limit of {self.max_parallel} working agents ([agents] "
                "max_parallel) is reached. Stop one or wait for one to finish, then start "
                "this one again."
            )

    async def _run(self, agent: _Agent, prompt: str) -> AgentFinished | None:
        session = agent.session
        assert session is not None
        state, error = AgentState.FAILED, None
        done: AgentFinished | None = None
        try:
            done = await session.send(prompt)
        except asyncio.CancelledError:
            state, error = AgentState.CANCELLED, "stopped"
            raise
        except Exception as exc:  # a bug in one agent must not take the others down
            log.exception("agent %s failed", agent.info.id)
            error = f"{type(exc).__name__}: {exc}"
        else:
            state, error = final_state(done)
        finally:
            self._update(agent, state=state, ended=time.time(), error=error, waiting=0)
        return done

    def _on_event(self, agent_id: str, event: Event) -> None:
        agent = self._agents.get(agent_id)
        if agent is None:
            return
        if isinstance(event, TurnFinished):
            cost = agent.info.cost
            if event.cost is not None:
                cost = (cost or 0.0) + event.cost
            self._update(agent, tokens=agent.info.tokens + event.usage.total, cost=cost)
            child = self._agents.get(f"{agent_id}/{event.parent_id.partition('/')[0]}")
            if event.parent_id and child is not None:
                self._update(child, tokens=child.info.tokens + event.usage.total)
        elif isinstance(event, ToolCallStateChanged) and self._queue.follow(agent.info, event.call):
            self._refresh_waiting(agent_id)
            self._emit(ApprovalsChanged(self._queue.items()))
        if agent.session is not None and agent.info.model != agent.session.model:
            self._update(agent, model=agent.session.model)

    def _refresh_waiting(self, agent_id: str) -> None:
        """Waiting for you while one of its calls (or its subagents') awaits approval."""
        for agent in self._agents.values():
            info = agent.info
            if info.id == agent_id:
                waiting = self._queue.count(agent_id)
            elif info.parent == agent_id:
                waiting = self._queue.count(agent_id, f"{info.id.partition('/')[2]}/")
            else:
                continue
            state = info.state
            if state.running:
                state = AgentState.WAITING_FOR_YOU if waiting else AgentState.WORKING
            self._update(agent, waiting=waiting, state=state)

    def _on_background(self, parent_id: str, run: BackgroundRun) -> None:
        """A background subagent of ``parent_id`` started or ended: listed meanwhile."""
        parent = self._agents.get(parent_id)
        if parent is None:
            return
        agent = self._agents.get(f"{parent_id}/{run.call_id}")
        if agent is None:
            agent = _Agent(subagent_info(parent.info, run), None, subagent=run)
            self._agents[agent.info.id] = agent
            self._emit(AgentStateChanged(agent.info, None))
        if run.finished is not None:
            state, error = final_state(run.finished, needs_output=True)
            tokens = max(agent.info.tokens, run.finished.usage.total)
            ended = time.time()
            self._update(agent, state=state, ended=ended, tokens=tokens, error=error, waiting=0)
            self._update(agent, cost=run.finished.cost)

    def _update(self, agent: _Agent, **changes: object) -> None:
        before = agent.info
        after = replace(before, **changes)  # type: ignore[arg-type]
        if after == before:
            return
        agent.info = after
        self._emit(AgentStateChanged(after, before.state))

    def _emit(self, event: FleetEvent) -> None:
        for fn in list(self._listeners):
            try:
                fn(event)
            except Exception:  # a broken view must never break the agents
                log.exception("fleet subscriber failed")

    async def _close(self, agent: _Agent) -> None:
        if agent.unsubscribe is not None:
            agent.unsubscribe()
        if agent.built is not None:
            await agent.built.session.agents.stop_background()
            with contextlib.suppress(Exception):
                await agent.built.session.aclose()
            agent.built.close()
