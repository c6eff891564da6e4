"""SessionRecorder: an inline bus subscriber that keeps the store equal to the chat's history.

The person's prompt is committed the moment it is sent; everything else is taken from
``session.chat.history`` whenever a turn, a tool call or the prompt's loop ends, so the
stored history is exactly what the chat would send next. A crash loses at most the part
of an answer still streaming. Deltas are ignored (they are the expensive, frequent
events), and every write is one short transaction.

Saving must never cost the conversation: when a write fails for good (disk full,
read-only store, I/O error) the recorder stops, leaves what it saved as it is, and says
once on the bus — an ``ErrorOccurred`` warning every view shows — that this session is
no longer being saved, and why. ``NullRecorder`` stands in when the store could not be
opened at all.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import TYPE_CHECKING, Any, Protocol

from gemtui.bus.events import (
    AgentFinished,
    ContentDelta,
    ErrorOccurred,
    Event,
    HistoryCompressed,
    SessionStarted,
    ThoughtDelta,
    ToolCallStateChanged,
    ToolOutput,
    TurnFinished,
    UserMessage,
)
from gemtui.store.failures import is_transient, reason_for
from gemtui.store.titles import title_from_prompt
from gemtui.wire import Content, Part

if TYPE_CHECKING:
    from collections.abc import Callable

    from gemtui.store.store import SessionStore

__all__ = [
    "NOT_SAVED",
    "NullRecorder",
    "RecordableSession",
    "SessionRecorder",
    "announce_when_started",
]

log = logging.getLogger(__name__)

_IGNORED = (ContentDelta, ThoughtDelta, ToolOutput)

NOT_SAVED = "This session is not being saved"
"""How every notice about an unsaved session begins (views and tests look for it)."""


def _announce(session: RecordableSession, message: str) -> None:
    log.error(message)
    session.bus.emit(ErrorOccurred, message=message, kind="warning")


def announce_when_started(session: RecordableSession, message: str) -> None:
    """Say ``message`` (a warning about the store) once the session has started.

    Views are subscribed by then, and in stream-json the notice follows ``init``.
    """

    def on_event(event: Event) -> None:
        if isinstance(event, SessionStarted):
            unsubscribe()
            _announce(session, message)

    unsubscribe = session.bus.subscribe(on_event)


class RecordableSession(Protocol):
    """What the recorder needs of a Session (kept narrow so tests can fake one)."""

    id: str
    bus: Any
    chat: Any
    provider: Any
    workspace: Any


class SessionRecorder:
    """Subscribe to ``session.bus`` and persist the conversation as it completes."""

    def __init__(self, store: SessionStore, session: RecordableSession) -> None:
        self.store = store
        self.session = session
        saved = store.get(session.id)
        self._seen = len(session.chat.history)
        """How many entries of ``chat.history`` the store holds (resumed ones count)."""
        if saved is not None and saved.messages < self._seen:
            self._seen = saved.messages  # answers to interrupted calls, added on load
        self._pending: Content | None = None
        """A prompt written before the chat appended it (it is stored at index ``_seen``)."""
        self._started = saved is not None
        self.writes = 0
        self.write_seconds = 0.0
        """Time spent writing: what the recorder costs the engine."""
        self.failures = 0
        self.stopped: str | None = None
        """Why saving stopped (the store failed for good); None while it saves."""
        self._unsubscribe: Callable[[], None] | None = session.bus.subscribe(self._on_event)

    def close(self) -> None:
        """Persist what is left and stop listening."""
        self._timed(self._sync)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    # -- events --------------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        if isinstance(event, _IGNORED):
            return
        if isinstance(event, SessionStarted):
            if self._started or self._seen:  # a new, empty session is saved at its first prompt
                self._timed(self._ensure_row)
        elif isinstance(event, UserMessage):
            self._timed(lambda: self._prompt(event.text))
        elif isinstance(event, HistoryCompressed):
            self._timed(self._rewrite)
        elif isinstance(event, TurnFinished):
            self._timed(lambda: self._turn_finished(event))
        elif isinstance(event, ToolCallStateChanged):
            if event.call.state.terminal:
                self._timed(lambda: self._tool_finished(event))
        elif isinstance(event, AgentFinished):
            self._timed(self._agent_finished)
        else:
            self._timed(self._sync)

    def _timed(self, fn: Callable[[], None]) -> None:
        if self.stopped is not None:
            return
        start = time.perf_counter()
        try:
            fn()
        except (sqlite3.Error, OSError) as exc:
            self.failures += 1
            if is_transient(exc):  # a lock held elsewhere: the next sync catches up
                log.warning("session recorder write postponed: %s", exc)
            else:
                self._stop(exc)
        except Exception:  # a recorder bug must never break the conversation
            self.failures += 1
            log.exception("session recorder write failed")
        finally:
            self.write_seconds += time.perf_counter() - start

    def _stop(self, exc: BaseException) -> None:
        """Save nothing more and tell the person once; what is saved stays as it is."""
        self.stopped = reason_for(exc, self.store.path)
        log.debug("session recorder stopped", exc_info=exc)
        _announce(
            self.session,
            f"{NOT_SAVED} any more: the session store {self.store.path} failed "
            f"({self.stopped}). What was saved before is kept; this conversation goes on "
            "unsaved.",
        )

    # -- writes --------------------------------------------------------------------------
    def _ensure_row(self) -> None:
        if self._started:
            s = self.session
            self.store.create_session(s.id, provider=s.provider.name, model=s.chat.model)
            return
        s = self.session
        self.store.create_session(
            s.id,
            workspace=str(s.workspace.root),
            provider=s.provider.name,
            model=s.chat.model,
        )
        self._started = True
        self.writes += 1
        if self._seen:  # started from a history the store does not have (a fork in memory)
            self.store.replace_history(s.id, s.chat.history)

    def _prompt(self, text: str) -> None:
        if not self._started:
            self._ensure_row()
        self._sync()
        if not text:
            return  # parts-only prompt: it arrives through the chat's history
        self.store.set_title_if_empty(self.session.id, title_from_prompt(text))
        content = Content(role="user", parts=[Part(text=text)])
        self.store.add_message(self.session.id, "user", content, index=self._seen)
        self._pending = content
        self.writes += 2

    def _turn_finished(self, event: TurnFinished) -> None:
        u = event.usage
        self.store.add_usage(
            self.session.id,
            prompt_id=event.prompt_id,
            model=event.model,
            input=u.input,
            output=u.output,
            thoughts=u.thoughts,
            cached=u.cached,
            total=u.total,
        )
        self.writes += 1
        self._sync()

    def _tool_finished(self, event: ToolCallStateChanged) -> None:
        call = event.call
        self.store.add_tool_call(
            self.session.id,
            call.call_id,
            call.name,
            dict(call.args),
            str(call.state),
            decision=str(call.decision) if call.decision is not None else None,
            output=call.output,
            error=call.error,
            duration_ms=call.duration_ms,
        )
        self.writes += 1
        self._sync()

    def _agent_finished(self) -> None:
        self._sync()
        if self._pending is not None:
            # the prompt never reached the model (cancelled first): the chat dropped it
            self.store.truncate_history(self.session.id, self._seen)
            self._pending = None
            self.writes += 1

    def _sync(self) -> None:
        """Write the chat's history entries the store does not have yet, in order."""
        if not self._started:
            return
        history: list[Content] = self.session.chat.history
        if len(history) < self._seen:
            self._rewrite()
            return
        for k in range(self._seen, len(history)):
            content = history[k]
            if self._pending is not None:
                if content.role == "user" and content.to_wire() == self._pending.to_wire():
                    self._pending = None
                    self._seen = k + 1
                    continue
                self._rewrite()
                return
            self.store.add_message(self.session.id, content.role or "user", content, index=k)
            self.writes += 1
            self._seen = k + 1

    def _rewrite(self) -> None:
        """The chat replaced its history (compression, clear): store it as a new epoch."""
        if not self._started:
            return
        history = list(self.session.chat.history)
        if self._pending is not None and not any(
            c.role == "user" and c.to_wire() == self._pending.to_wire() for c in history[-1:]
        ):
            self.store.replace_history(self.session.id, [*history, self._pending])
        else:
            self._pending = None
            self.store.replace_history(self.session.id, history)
        self._seen = len(history)
        self.writes += 1


class NullRecorder:
    """Records nothing: the store could not be opened. Says why once, when the session starts."""

    def __init__(self, session: RecordableSession, reason: str) -> None:
        self.session = session
        self.stopped: str | None = reason
        announce_when_started(session, f"{NOT_SAVED}: {reason}. Saved sessions are untouched.")

    def close(self) -> None:
        """Nothing to persist."""
