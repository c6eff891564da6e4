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


def _count_parts(condition: str) -> str:
    return f"(SELECT count(*) FROM json_each(m.content, '$.parts') p WHERE {condition})"


_PARTS = ", ".join(
    _count_parts(c)
    for c in (
        "json_type(p.value, '$.text') IS NOT NULL AND NOT coalesce(json_extract(p.value, "
        "'$.thought'), 0)",
        "json_type(p.value, '$.functionCall') IS NOT NULL",
        "json_type(p.value, '$.functionResponse') IS NOT NULL",
    )
)
"""How many parts of a matching message are words, tool calls and tool results."""


def _label(role: str, *, said: int, calls: int, results: int) -> str:
    """What a hit is to a person: a message of tool results alone is no one's words."""
    if not said and results:
        return "tool result"
    if not said and calls:
        return "tool call"
    return role


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
        f" snippet(messages_fts, 0, '{HIT_START}', '{HIT_END}', '…', 12), {_PARTS}"
        " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
        f" WHERE messages_fts MATCH ?{ws} ORDER BY messages_fts.rowid DESC LIMIT ?",
        params,
    )
    order: list[str] = []
    hits: dict[str, list[SearchHit]] = {}
    for sid, idx, role, marked, said, calls, results in rows:
        if sid not in hits:
            order.append(sid)
            hits[sid] = []
        if len(hits[sid]) < per_session:
            label = _label(role, said=said, calls=calls, results=results)
            hits[sid].append(SearchHit.from_marked(sid, idx, label, marked))
    out: list[SessionMatch] = []
    for sid in order:
        info = store.get(sid)
        if info is not None:
            out.append(SessionMatch(info, hits[sid]))
    return out
