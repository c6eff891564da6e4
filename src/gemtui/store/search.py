"""Full-text search over everything said (FTS5), with the hits marked for highlighting."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gemtui.store.records import HIT_END, HIT_START, SearchHit, SessionMatch

if TYPE_CHECKING:
    from gemtui.store.store import StoreCore

__all__ = ["fts_query", "search_sessions"]


def fts_query(text: str) -> str:
    """A person's words as a safe FTS5 query: every word required, the last one a prefix."""
    words = re.findall(r"\w+", text, flags=re.UNICODE)
    if not words:
        return ""
    quoted = ['"' + w.replace('"', '""') + '"' for w in words]
    quoted[-1] += "*"
    return " ".join(quoted)


def search_sessions(
    store: StoreCore,
    query: str,
    *,
    workspace: str | None = None,
    limit: int = 200,
    per_session: int = 3,
) -> list[SessionMatch]:
    """Sessions whose messages match ``query`` (FTS5), newest hit first, with snippets.

    Scans the newest ``limit`` matching messages only (rowid order, no ranking of every
    hit), so a common word in a million messages costs the same as a rare one.
    """
    match = fts_query(query)
    if not match:
        return []
    ws = " AND m.session_id IN (SELECT id FROM sessions WHERE workspace = ?)" if workspace else ""
    params: list[Any] = [match, *([workspace] if workspace else []), limit]
    rows = store._query(
        "SELECT m.session_id, m.idx, m.role,"
        f" snippet(messages_fts, 0, '{HIT_START}', '{HIT_END}', '…', 12)"
        " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
        f" WHERE messages_fts MATCH ?{ws} ORDER BY messages_fts.rowid DESC LIMIT ?",
        params,
    )
    order: list[str] = []
    hits: dict[str, list[SearchHit]] = {}
    for sid, idx, role, marked in rows:
        if sid not in hits:
            order.append(sid)
            hits[sid] = []
        if len(hits[sid]) < per_session:
            hits[sid].append(SearchHit.from_marked(sid, idx, role, marked))
    out: list[SessionMatch] = []
    for sid in order:
        info = store.get(sid)
        if info is not None:
            out.append(SessionMatch(info, hits[sid]))
    return out
