"""SessionStore: the store as its callers use it — the SQLite core plus recording,
full-text search and export, each of which sits above the core and takes one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemtui.store.agents import AgentRow, recent_agents, save_agent
from gemtui.store.export import to_json, to_markdown
from gemtui.store.recorder import SessionRecorder
from gemtui.store.records import SessionMatch
from gemtui.store.search import search_sessions
from gemtui.store.spend import SpendRow, spend_since
from gemtui.store.store import StoreCore
from gemtui.store.subagent_log import SubagentTranscript, subagent_transcripts

if TYPE_CHECKING:
    from gemtui.bus import EventBus

__all__ = ["SessionStore"]


class SessionStore(StoreCore):
    """The saved sessions of this user (``data_dir()/sessions.db`` unless told otherwise)."""

    def record(self, bus: EventBus) -> SessionRecorder:
        """Start recording the session on ``bus`` into this store (an inline subscriber).

        When a write fails for good (disk full, read-only, I/O error) the recorder stops
        and says so once on the session's bus; the conversation goes on.
        """
        return SessionRecorder(self, bus)

    def search(
        self, query: str, *, workspace: str | None = None, limit: int = 200, per_session: int = 3
    ) -> list[SessionMatch]:
        """Sessions whose messages match ``query`` (FTS5), newest hit first, with snippets."""
        return search_sessions(
            self, query, workspace=workspace, limit=limit, per_session=per_session
        )

    def subagent_transcripts(self, session_id: str) -> dict[str, SubagentTranscript]:
        """What each subagent of the session said and did, by the parent call that
        started it (shown in its delegation card on resume)."""
        return subagent_transcripts(self, session_id)

    def save_agent(self, row: AgentRow) -> None:
        """Write an agent run's row (``gemtui agents`` in another terminal reads it)."""
        save_agent(self, row)

    def agents(self, workspace: str, *, limit: int = 50) -> list[AgentRow]:
        """The folder's running agents, then its recent ones, newest first."""
        return recent_agents(self, workspace, limit=limit)

    def spend(self, since: float) -> list[SpendRow]:
        """Model calls since ``since`` in every session, by day, model and agent."""
        return spend_since(self, since)

    def export_markdown(self, session_id: str) -> str:
        return to_markdown(self, session_id)

    def export_json(self, session_id: str) -> str:
        return to_json(self, session_id)
