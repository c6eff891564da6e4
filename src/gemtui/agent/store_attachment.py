"""The store's part of a run (headless or TUI): open it, resolve ``--resume``, never block.

A store that cannot be opened costs the recording, not the answer: the run goes on with a
``NullRecorder``, which says on the session's bus why nothing is saved. Only an explicit
``--resume`` that cannot be honoured stops it (42).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from gemtui.errors import FatalInputError

if TYPE_CHECKING:  # the store's modules load when it opens: after the session, at a screen
    from gemtui.agent.session import Session
    from gemtui.bus import Event, EventBus
    from gemtui.store import NullRecorder, SessionRecorder, SessionStore

__all__ = ["LaterRecorder", "StoreAttachment", "attach_store", "store_later"]

log = logging.getLogger(__name__)


class StoreAttachment(Struct):
    """The store of one run, or why there is none, and the resumed session's options."""

    store: SessionStore | None
    resumed: dict[str, Any] = field(default_factory=dict)
    """``SessionOptions`` keyword arguments for a resumed session (id and history)."""
    unavailable: str | None = None
    """Why the store could not be opened (the file was left untouched)."""
    notices: list[str] = field(default_factory=list)
    """What opening it did that the person must hear of (a damaged file moved aside)."""

    workspace: Path | None = None
    """Set while the store is still to be opened (``store_later``): where the run works."""
    _recorder: LaterRecorder | None = None
    _waiting: list[Callable[[], None]] = field(default_factory=list)
    _opened: StoreAttachment | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def opening(self) -> bool:
        """The store is still to be opened: what is recorded waits (``LaterRecorder``)."""
        return self.workspace is not None

    def open(self) -> None:
        """Open the store (in any thread): ``opened`` then hands it over. An exit that
        cannot wait for a slow opening opens its own; the one that comes second closes."""
        workspace = self.workspace
        if workspace is None or self._opened is not None:
            return
        opened = attach_store(None, workspace)
        with self._lock:
            if self._opened is None and self.workspace is not None:
                self._opened = opened
                return
        if opened.store is not None:
            opened.store.close()

    def opened(self) -> None:
        """On the bus's thread once ``open`` returned (or at exit, which opens it if no
        thread did): what waited is written, then every change as it comes."""
        if self.workspace is None:
            return
        self.open()
        with self._lock:
            done, self._opened = self._opened, None
            self.workspace = None
        assert done is not None
        self.store, self.unavailable = done.store, done.unavailable
        if self._recorder is not None:
            self._recorder.attach(self.store, self.unavailable, done.notices)
        else:
            self.notices = done.notices
        waiting, self._waiting = self._waiting, []
        for fn in waiting:
            fn()

    def when_open(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` once the store is open (now if it is)."""
        if self.opening:
            self._waiting.append(fn)
        else:
            fn()

    def record(self, session: Session) -> SessionRecorder | NullRecorder | LaterRecorder:
        """Record ``session``, or stand in with a recorder that says why it cannot.

        Notices are said on the session's bus once it starts, so every view shows them
        (stderr headless, the transcript in the TUI).
        """
        if self.opening:
            self._recorder = LaterRecorder(session.bus)
            return self._recorder
        from gemtui.store.recorder import NullRecorder, announce_when_started

        notices, self.notices = self.notices, []  # said once, not again on a resume
        for notice in notices:
            announce_when_started(session.bus, notice)
        if self.store is not None:
            return self.store.record(session.bus)
        return NullRecorder(session.bus, self.unavailable or "the session store is not open")


def attach_store(
    resume: str | None, workspace: Path, *, store: SessionStore | None = None
) -> StoreAttachment:
    """Open the store (or use the open ``store``) and resolve ``resume`` (an id, a prefix
    or ``latest``).

    A store that can be read but not written (read-only, disk full) still resumes: the
    history is read, and the continued session goes unsaved with a notice.
    """
    from gemtui.store import SessionStore
    from gemtui.store.db import StoreUnavailableError, StoreVersionError
    from gemtui.store.resume import open_session_for_resume

    notices: list[str] = []
    try:
        store = store or SessionStore(tell=notices.append)
    except (StoreUnavailableError, StoreVersionError, sqlite3.Error, OSError) as exc:
        log.warning("cannot open the session store: %s", exc)
        resumed = {} if resume is None else _resume_read_only(resume, workspace, exc)
        return StoreAttachment(None, resumed, str(exc), notices)
    if resume is None:
        return StoreAttachment(store, notices=notices)
    session_id, history, _meta = open_session_for_resume(store, resume, workspace=workspace)
    return StoreAttachment(store, {"session_id": session_id, "history": history}, None, notices)


def store_later(workspace: Path) -> StoreAttachment:
    """A new session's store, opened after the session starts (``open``, ``opened``): a
    person at the screen sends the first prompt without waiting for SQLite."""
    return StoreAttachment(None, workspace=workspace)


def _resume_read_only(resume: str, workspace: Path, why: Exception) -> dict[str, Any]:
    from gemtui.store import SessionStore
    from gemtui.store.db import StoreUnavailableError, StoreVersionError
    from gemtui.store.resume import open_session_for_resume

    try:
        with SessionStore(writable=False) as reader:
            session_id, history, _meta = open_session_for_resume(
                reader, resume, workspace=workspace
            )
    except FatalInputError:
        raise
    except (StoreUnavailableError, StoreVersionError, sqlite3.Error, OSError) as exc:
        raise FatalInputError(f"cannot resume: {why}") from exc
    return {"session_id": session_id, "history": history}


class LaterRecorder:
    """Records a session whose store is still opening: the bus's events wait here, in
    order, until ``attach`` hands them to the store's recorder (issue 34: the first
    request never waits for SQLite). Call its methods on the bus's thread."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self.events: list[Event] = []
        self.inner: SessionRecorder | NullRecorder | None = None
        self._unsubscribe: Callable[[], None] | None = bus.subscribe(self.events.append)

    @property
    def stopped(self) -> str | None:
        """Why nothing is saved any more (None while it saves, or waits to)."""
        return self.inner.stopped if self.inner is not None else None

    def attach(
        self, store: SessionStore | None, unavailable: str | None, notices: list[str]
    ) -> None:
        """The store is open (or could not be): write what waited, then follow the bus."""
        if self._unsubscribe is None:
            return  # closed meanwhile
        self._unsubscribe()
        self._unsubscribe = None
        from gemtui.store.recorder import NullRecorder, SessionRecorder, announce

        for notice in notices:
            announce(self.bus, notice)
        if store is None:
            reason = unavailable or "the session store is not open"
            self.inner = NullRecorder(self.bus, reason, started=True)
            return
        self.inner = SessionRecorder(store, self.bus)
        events, self.events = self.events, []
        self.inner.catch_up(events)

    def close(self) -> None:
        """Stop listening (what waited is written by ``attach``, called first on exit)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.inner is not None:
            self.inner.close()
