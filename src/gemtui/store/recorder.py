"""SessionRecorder: a pure bus subscriber that keeps the store equal to the conversation.

It knows the conversation only from the bus: ``SessionStarted`` says which session,
``HistoryAppended`` / ``HistoryReplaced`` carry every change of the history (its one
writer publishes them), ``TurnFinished`` and terminal ``ToolCallStateChanged`` bring
usage and tool calls. The person's prompt is committed the moment it is sent
(``UserMessage``), before the chat takes it, so a crash never loses what was typed; each
history entry is written as it is appended, so tool results are saved before the next
answer streams. A subagent's history (``SubagentHistoryAppended``) is stored apart,
under the parent call that started it, never in the conversation's. Deltas are ignored
(they are the expensive, frequent events), and every write is one short transaction.
Replaying a recording of the bus into an empty store gives the same rows as the live
run.

Saving must never cost the conversation: when a write fails for good (disk full,
read-only store, I/O error) the recorder stops, leaves what it saved as it is, and says once
on the bus — an ``ErrorOccurred`` warning every view shows — that this session is no
longer being saved, and why. ``NullRecorder`` stands in when the store could not be
opened at all.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import TYPE_CHECKING

from gemtui.bus.events import (
    AgentFinished,
    ErrorOccurred,
    Event,
    HistoryAppended,
    HistoryReplaced,
    SessionStarted,
    SubagentHistoryAppended,
    ToolCallStateChanged,
    TurnFinished,
    UserMessage,
)
from gemtui.store.failures import is_transient, reason_for
from gemtui.store.subagent_log import add_subagent_message
from gemtui.store.titles import SHELL_MODE, title_from_prompt
from gemtui.wire import Content, Part

if TYPE_CHECKING:
    from collections.abc import Callable

    from gemtui.bus import EventBus
    from gemtui.store.store import StoreCore

__all__ = [
    "NOT_SAVED",
    "NullRecorder",
    "SessionRecorder",
    "announce",
    "announce_when_started",
]

log = logging.getLogger(__name__)

NOT_SAVED = "This session is not being saved"
"""How every notice about an unsaved session begins (views and tests look for it)."""


def announce(bus: EventBus, message: str) -> None:
    """Say ``message`` (a warning about the store) now, on the session's bus."""
    log.error(message)
    bus.emit(ErrorOccurred, message=message, kind="warning")


def announce_when_started(bus: EventBus, message: str) -> None:
    """Say ``message`` (a warning about the store) once the session has started.

    Views are subscribed by then, and in stream-json the notice follows ``init``.
    """

    def on_event(event: Event) -> None:
        if isinstance(event, SessionStarted):
            unsubscribe()
            announce(bus, message)

    unsubscribe = bus.subscribe(on_event)


def _same(a: Content, b: Content) -> bool:
    return a is b or a.to_wire() == b.to_wire()


def _typed_part(content: Content) -> Content:
    """The message as the person typed it: its first part (``@`` files come after)."""
    return Content(role=content.role, parts=content.parts[:1])


class SessionRecorder:
    """Subscribe to ``bus`` and persist the conversation as it changes."""

    def __init__(self, store: StoreCore, bus: EventBus) -> None:
        self.store = store
        self.bus = bus
        self.session_id = bus.session_id
        self._history: list[Content] = []
        """The conversation as the bus told it (the recorder's own mirror)."""
        self._saved = 0
        """How many entries of ``_history`` the store's current epoch holds."""
        self._pending: Content | None = None
        """A prompt written before the chat took it (stored at index ``_saved``)."""
        self._started = False
        """The session has a row in the store."""
        self._meta = ("", "", "")
        """(workspace, provider, model) from ``SessionStarted``."""
        self._meta_stale = False
        """A resumed session runs on another provider or model than its row says."""
        self.writes = 0
        self.write_seconds = 0.0
        """Time spent writing: what the recorder costs the engine."""
        self._shell_title: str | None = None
        """The title given from a ``!`` command; the first prompt's title replaces it."""
        self.failures = 0
        self.stopped: str | None = None
        """Why saving stopped (the store failed for good); None while it saves."""
        self._unsubscribe: Callable[[], None] | None = bus.subscribe(self._on_event)

    def close(self) -> None:
        """Stop listening (every change was written as it came)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def catch_up(self, events: list[Event]) -> None:
        """Write what the bus said before this recorder listened, in order (a store that
        opened after the session started: ``LaterRecorder``)."""
        for event in events:
            self._on_event(event)

    # -- events --------------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        if isinstance(event, HistoryAppended):
            self._timed(lambda: self._appended(event.index, event.content))
        elif isinstance(event, SessionStarted):
            self._timed(lambda: self._begin(event))
        elif isinstance(event, UserMessage):
            self._timed(lambda: self._prompt(event.text))
        elif isinstance(event, HistoryReplaced):
            self._timed(lambda: self._replaced(list(event.contents), event.reason))
        elif isinstance(event, TurnFinished):
            self._timed(lambda: self._turn_finished(event))
        elif isinstance(event, ToolCallStateChanged):
            if event.call.state.terminal:
                self._timed(lambda: self._tool_finished(event))
        elif isinstance(event, AgentFinished):
            if not event.parent_id:
                self._timed(self._agent_finished)
        elif isinstance(event, SubagentHistoryAppended) and event.parent_id:
            self._timed(lambda: self._subagent_said(event))

    def _timed(self, fn: Callable[[], None]) -> None:
        if self.stopped is not None:
            return
        start = time.perf_counter()
        try:
            fn()
        except (sqlite3.Error, OSError) as exc:
            self.failures += 1
            if is_transient(exc):  # a lock held elsewhere: the next change rewrites
                log.warning("session recorder write postponed: %s", exc)
                self._saved = -1
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
        announce(
            self.bus,
            f"{NOT_SAVED} any more: the session store {self.store.path} failed "
            f"({self.stopped}). What was saved before is kept; this conversation goes on "
            "unsaved.",
        )

    # -- writes --------------------------------------------------------------------------
    def _begin(self, event: SessionStarted) -> None:
        """A new session is saved at its first prompt; a saved one (a resume) gets its
        provider and model brought up to date then too: opening a session to look at it
        changes nothing stored about it."""
        self._meta = (event.workspace, event.provider, event.model)
        saved = self.store.get(self.session_id)
        if saved is not None:
            self._started = True
            self._saved = -1 if saved.messages else 0  # known once the history is published
            self._meta_stale = (saved.provider, saved.model) != (event.provider, event.model)

    def _ensure_row(self) -> bool:
        """Give the session its row; True when it was made now (it holds no message)."""
        if self._started:
            return False
        workspace, provider, model = self._meta
        self.store.create_session(
            self.session_id, workspace=workspace, provider=provider, model=model
        )
        self._started = True
        self._saved = 0
        self.writes += 1
        return True

    def _prompt(self, text: str) -> None:
        self._ensure_row()
        if self._meta_stale:  # the resumed session is used now: with this provider and model
            _, provider, model = self._meta
            self.store.create_session(self.session_id, provider=provider, model=model)
            self._meta_stale = False
            self.writes += 1
        self._catch_up()
        if not text:
            return  # parts-only prompt: it arrives as a history entry
        title = title_from_prompt(text)
        self.store.set_title_if_empty(self.session_id, title)
        if self._shell_title is not None:  # titled from a `!` command: the prompt says more
            saved = self.store.get(self.session_id)
            if saved is not None and saved.title == self._shell_title:
                self.store.rename(self.session_id, title)
            self._shell_title = None
        content = Content(role="user", parts=[Part(text=text)])
        self.store.add_message(self.session_id, "user", content, index=self._saved)
        self._pending = content
        self.writes += 2

    def _appended(self, index: int, content: Content) -> None:
        del self._history[index:]
        self._history.append(content)
        if not self._started:
            return
        pending = self._pending
        if pending is not None and index == self._saved and self._saved >= 0:
            self._pending = None
            if content.role == "user" and _same(content, pending):
                self._saved = index + 1
                return
            if content.role == "user" and _same(_typed_part(content), pending):
                # the prompt as typed, with the files `@` attached: the same message
                self.store.replace_message(self.session_id, index, content)
                self.writes += 1
                self._saved = index + 1
                return
            self._rewrite(pending)  # something came before the prompt: it goes last
            return
        if index != self._saved:
            self._rewrite(pending)
            return
        self.store.add_message(self.session_id, content.role or "user", content, index=index)
        self.writes += 1
        self._saved = index + 1

    def _replaced(self, contents: list[Content], reason: str) -> None:
        self._history = contents
        if not contents and not self._started:
            return
        if reason == "resume" and self._started:
            stored = self.store.load_history(self.session_id)
            if len(stored) == len(contents) and all(map(_same, stored, contents)):
                self._saved = len(contents)
                return
        if self._ensure_row():  # a history the store has never seen (a fork in memory)
            self._history = []
            for index, content in enumerate(contents):
                self._appended(index, content)
            return
        self._rewrite(self._pending)

    def _catch_up(self) -> None:
        """After a postponed write, store the whole history again (a new epoch)."""
        if self._saved < 0:
            self._rewrite(self._pending)

    def _rewrite(self, pending: Content | None) -> None:
        """Store the history as a new epoch, the prompt not yet taken by the chat last."""
        history = list(self._history)
        if pending is not None and not (history and _same(history[-1], pending)):
            self.store.replace_history(self.session_id, [*history, pending])
            self._pending = pending
        else:
            self._pending = None
            self.store.replace_history(self.session_id, history)
        self._saved = len(history)
        self.writes += 1

    def _turn_finished(self, event: TurnFinished) -> None:
        u = event.usage
        self.store.add_usage(
            self.session_id,
            prompt_id=event.prompt_id,
            model=event.model,
            input=u.input,
            output=u.output,
            thoughts=u.thoughts,
            cached=u.cached,
            total=u.total,
            parent_call=event.parent_id or None,
        )
        self.writes += 1

    def _subagent_said(self, event: SubagentHistoryAppended) -> None:
        self._ensure_row()
        add_subagent_message(
            self.store, self.session_id, event.parent_id, event.agent, event.index, event.content
        )
        self.writes += 1

    def _tool_finished(self, event: ToolCallStateChanged) -> None:
        call = event.call
        self._ensure_row()
        command = call.args.get("command")
        if call.args.get("description") == SHELL_MODE and isinstance(command, str):
            saved = self.store.get(self.session_id)
            if saved is not None and not saved.title:  # a session of `!` commands so far
                self._shell_title = title_from_prompt(f"!{command.strip()}")
                self.store.set_title_if_empty(self.session_id, self._shell_title)
        self.store.add_tool_call(
            self.session_id,
            call.call_id,
            call.name,
            dict(call.args),
            str(call.state),
            decision=str(call.decision) if call.decision is not None else None,
            output=call.output,
            error=call.error,
            duration_ms=call.duration_ms,
            refusal=str(call.refusal) if call.refusal is not None else None,
        )
        self.writes += 1

    def _agent_finished(self) -> None:
        if self._pending is not None and self._started:
            # the prompt never reached the model (cancelled first): the chat dropped it
            self._catch_up()
            self.store.truncate_history(self.session_id, len(self._history))
            self._pending = None
            self._saved = len(self._history)
            self.writes += 1


class NullRecorder:
    """Records nothing: the store could not be opened. Says why once, when the session starts."""

    def __init__(self, bus: EventBus, reason: str, *, started: bool = False) -> None:
        self.stopped: str | None = reason
        message = f"{NOT_SAVED}: {reason}. Saved sessions are untouched."
        if started:  # the session began already: said now
            announce(bus, message)
        else:
            announce_when_started(bus, message)

    def close(self) -> None:
        """Nothing to persist."""
