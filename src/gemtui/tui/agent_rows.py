"""What the agent view shows of a fleet of sessions, as plain Python (no Textual).

The engine's fleet (many sessions on one event loop) is adapted to ``AgentFleet``; the
view, the status line and the approval queue read only this. A fleet tells what changed
through ``FleetNews`` sent to its listeners: ``RowsChanged`` (states, tokens, costs) and
``CallChanged`` (a tool call of one agent, for the one approval queue). Attention
(a background agent now waits for you, or has finished) is worked out here from two
successive row lists, so every fleet gets it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal, Protocol

from msgspec import Struct

if TYPE_CHECKING:
    from gemtui.agent.session import Session
    from gemtui.bus.events import ToolCallSnapshot
    from gemtui.bus.values import Decision

__all__ = [
    "FINISHED",
    "AgentFleet",
    "AgentRequest",
    "AgentRow",
    "AgentState",
    "Attention",
    "CallChanged",
    "FleetNews",
    "RowsChanged",
    "StartRefused",
    "attention_between",
    "elapsed_text",
    "status_summary",
]

AgentState = Literal["idle", "working", "waiting", "done", "failed", "cancelled"]
"""``waiting`` means waiting for *you* (a call awaits approval); ``idle``: no prompt yet."""

FINISHED: frozenset[str] = frozenset({"done", "failed", "cancelled"})
"""States an agent never leaves: only these may be removed from the view."""


class AgentRow(Struct, frozen=True):
    """One agent as the view lists it."""

    id: str
    """The fleet's id of the agent (decisions carry it back)."""
    task: str
    """What it was asked to do (its first prompt), or its name."""
    state: AgentState
    provider: str
    model: str
    started: float
    """When it started, on the fleet's clock (``time.time``)."""
    tokens: int = 0
    cost: float | None = None
    """Dollars spent, None when the model has no known price."""
    workspace: str = ""
    """The folder it works in (a worktree's path for one started in a worktree)."""
    branch: str | None = None
    ended: float | None = None
    """When it finished (elapsed time stops there)."""

    @property
    def label(self) -> str:
        """How the approval queue names the agent and its workspace."""
        where = f"{self.workspace} ⎇ {self.branch}" if self.branch else self.workspace
        return f"agent {self.task[:40]!r} in {where}" if where else f"agent {self.task[:40]!r}"


class AgentRequest(Struct, frozen=True):
    """A new agent, as the view's form asks for it."""

    task: str
    model: str = ""
    """Empty: the front agent's model."""
    new_worktree: bool = False
    """Work in a fresh git worktree (the ``-w`` machinery) rather than in the folder."""


class StartRefused(Exception):
    """The fleet would not start one more (``[agents] max_parallel`` reached, or its
    session could not be built: an unknown model, no key); its message says so in one
    line the view shows as is."""


class RowsChanged(Struct, frozen=True):
    """Some agent's state, tokens or cost changed: read ``rows()`` again."""


class CallChanged(Struct, frozen=True):
    """One agent's tool call changed state (upserted into the one approval queue)."""

    agent_id: str
    snapshot: ToolCallSnapshot
    prompt_id: str = ""


FleetNews = RowsChanged | CallChanged


class AgentFleet(Protocol):
    """The fleet as the TUI uses it; an adapter makes the engine's one fit."""

    @property
    def front_id(self) -> str:
        """The agent whose session the main screen shows."""
        ...

    @property
    def limit_note(self) -> str | None:
        """A line saying a limit is reached (``max_parallel``), None while none is."""
        ...

    def rows(self) -> Sequence[AgentRow]:
        """Every agent, in the order they started."""
        ...

    def session_of(self, agent_id: str) -> Session:
        """The agent's session, to show it in front."""
        ...

    def bring_to_front(self, agent_id: str) -> None:
        """Make ``agent_id`` the front agent (the others go on in the background)."""
        ...

    def start(self, request: AgentRequest) -> str:
        """Start an agent on ``request``; its id. Raises ``StartRefused``."""
        ...

    def stop(self, agent_id: str) -> None:
        """Cancel the agent's turn; it ends ``cancelled``."""
        ...

    def remove(self, agent_id: str) -> None:
        """Forget a finished agent (its saved session stays in the store)."""
        ...

    def decide(self, agent_id: str, correlation_id: str, decision: Decision) -> bool:
        """Answer one approval request of exactly that agent; False when it no longer waits."""
        ...

    def subscribe(self, listener: Callable[[FleetNews], None]) -> Callable[[], None]:
        """Call ``listener`` with each piece of news (on the event loop); returns the
        unsubscribe function."""
        ...

    async def close_background(self) -> None:
        """The app ends: stop every agent but the front one and close their sessions (the
        front one is closed by the app, as a single session always was)."""
        ...


class Attention(Struct, frozen=True):
    """A background agent needs you or has finished: said in the view, rung, notified."""

    agent_id: str
    title: str
    body: str


_SAID = {
    "waiting": "waits for you",
    "done": "is done",
    "failed": "failed",
    "cancelled": "was cancelled",
}


def attention_between(
    before: Sequence[AgentRow], after: Sequence[AgentRow], front_id: str
) -> list[Attention]:
    """The background agents that came to need you or finished between two row lists."""
    old = {row.id: row.state for row in before}
    out: list[Attention] = []
    for row in after:
        if row.id == front_id or row.state not in _SAID or old.get(row.id) == row.state:
            continue
        if row.id not in old and row.state != "waiting":
            continue  # a row seen for the first time already finished: nothing happened now
        out.append(Attention(row.id, f"gemtui: agent {_SAID[row.state]}", row.task))
    return out


def status_summary(rows: Sequence[AgentRow], front_id: str) -> str:
    """``2 working · 1 waits for you`` for the status line; empty with a single agent in
    front (nothing runs behind the person's back then)."""
    if len(rows) <= 1 and all(row.id == front_id for row in rows):
        return ""
    working = sum(row.state == "working" for row in rows)
    waiting = sum(row.state == "waiting" for row in rows)
    text = f"agents {working} working"
    return text + (f" · {waiting} wait{'s' if waiting == 1 else ''} for you" if waiting else "")


def elapsed_text(row: AgentRow, now: float) -> str:
    """``42s``, ``3m05s`` or ``1h02m`` since the agent started (until it ended)."""
    seconds = max(0, int((row.ended if row.ended is not None else now) - row.started))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
