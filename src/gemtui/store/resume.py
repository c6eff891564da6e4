"""Reopening a saved session: the one path headless ``--resume`` and the TUI share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gemtui.errors import FatalInputError
from gemtui.store.records import SessionInfo
from gemtui.store.store import SessionNotFoundError, SessionStore
from gemtui.wire import Content

__all__ = ["ResumeMeta", "open_session_for_resume"]


@dataclass(frozen=True, slots=True)
class ResumeMeta:
    """What the caller shows about the resumed session."""

    info: SessionInfo
    forked_from: str | None = None
    """Set when an imported (read-only) session was copied into a new one to continue."""


def open_session_for_resume(
    store: SessionStore, ref: str | None, *, workspace: Path | str | None = None
) -> tuple[str, list[Content], ResumeMeta]:
    """``(session_id, history, meta)`` for ``ref`` (an id, a prefix or ``latest``).

    ``latest`` means the newest session of ``workspace`` when one is given. An imported
    session stays read-only: resuming continues a fork of it. Raises FatalInputError
    (exit 42) with a clear message when nothing matches.
    """
    try:
        info = store.resolve(ref, workspace=str(workspace) if workspace else None)
    except SessionNotFoundError as exc:
        raise FatalInputError(
            f"cannot resume: {exc}. `gemtui sessions list` shows the saved sessions."
        ) from exc
    forked_from = None
    if info.imported:
        forked_from = info.id
        new_id = store.fork(info.id)
        forked = store.get(new_id)
        assert forked is not None
        info = forked
    return info.id, store.load_history(info.id), ResumeMeta(info, forked_from)
