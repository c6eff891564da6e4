"""The store's part of a headless run: open it, resolve ``--resume``, never block the run.

A store that cannot be opened costs the recording, not the answer: the run goes on and
says so on stderr. Only an explicit ``--resume`` that cannot be honoured stops it (42).
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any, TextIO

from gemtui.errors import FatalInputError
from gemtui.store.db import StoreVersionError
from gemtui.store.resume import open_session_for_resume
from gemtui.store.store import SessionStore

__all__ = ["attach_store"]

log = logging.getLogger(__name__)


def attach_store(
    resume: str | None, workspace: Path, err: TextIO
) -> tuple[SessionStore | None, dict[str, Any]]:
    """``(store or None, SessionOptions keyword arguments for a resumed session)``."""
    try:
        store = SessionStore()
    except (sqlite3.Error, OSError, StoreVersionError) as exc:
        log.exception("cannot open the session store")
        if resume is not None:
            raise FatalInputError(
                f"cannot resume: the session store cannot be opened ({exc})"
            ) from exc
        err.write(f"gemtui: this session will not be saved: {exc}\n")
        return None, {}
    if resume is None:
        return store, {}
    session_id, history, _meta = open_session_for_resume(store, resume, workspace=workspace)
    return store, {"session_id": session_id, "history": history}
