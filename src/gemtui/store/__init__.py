"""The session store: SQLite (WAL) sessions, their recorder, search, resume and import.

Nothing here imports Textual; the TUI's browser takes a ``SessionStore``.
"""

from __future__ import annotations

from gemtui.store.db import StoreCorruptError, StoreVersionError, database_path, open_database
from gemtui.store.facade import SessionStore
from gemtui.store.failures import StoreUnavailableError
from gemtui.store.recorder import NullRecorder, SessionRecorder
from gemtui.store.records import SearchHit, SessionInfo, SessionMatch, content_text
from gemtui.store.resume import ResumeMeta, open_session_for_resume
from gemtui.store.schema import SCHEMA_VERSION
from gemtui.store.store import SORTS, SessionNotFoundError
from gemtui.store.titles import improve_title, title_from_prompt

__all__ = [
    "SCHEMA_VERSION",
    "SORTS",
    "NullRecorder",
    "ResumeMeta",
    "SearchHit",
    "SessionInfo",
    "SessionMatch",
    "SessionNotFoundError",
    "SessionRecorder",
    "SessionStore",
    "StoreCorruptError",
    "StoreUnavailableError",
    "StoreVersionError",
    "content_text",
    "database_path",
    "improve_title",
    "open_database",
    "open_session_for_resume",
    "title_from_prompt",
]
