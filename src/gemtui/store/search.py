"""Full-text search over everything said (FTS5), with the hits marked for highlighting.

What subagents said is searched too (its own index): a word only a subagent wrote finds
the session, its hit labelled with the agent's name.
"""

from __future__ import annotations

import json
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

_MESSAGES = (
    "SELECT m.created, m.session_id, m.idx, m.role, '',"
    " snippet(messages_fts, 0, '{start}', '{end}', '…', 12), m.content, {parts}"
    " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
    " WHERE messages_fts MATCH ?{ws} ORDER BY messages_fts.rowid DESC LIMIT ?"
)
_SUBAGENTS = (
    "SELECT m.created, m.session_id, m.idx, m.role, m.agent,"
    " snippet(subagent_messages_fts, 0, '{start}', '{end}', '…', 12), m.content, {parts}"
    " FROM subagent_messages_fts JOIN subagent_messages m"
    " ON m.id = subagent_messages_fts.rowid"
    " WHERE subagent_messages_fts MATCH ?{ws} ORDER BY subagent_messages_fts.rowid DESC LIMIT ?"
)


def _marked_words(marked: str) -> list[str]:
    """The highlighted words of a snippet, lower-cased."""
    pattern = re.escape(HIT_START) + "(.*?)" + re.escape(HIT_END)
    return [w.lower() for w in re.findall(pattern, marked, flags=re.DOTALL) if w.strip()]


def _tool_part(content: str, words: list[str]) -> str | None:
    """ "tool call (NAME)" or "tool result (NAME)" when the highlighted words lie in a tool's
    part of the message rather than in what was said; None when they are words."""
    try:
        parts = json.loads(content).get("parts") or []
    except (ValueError, AttributeError):
        return None
    for part in parts:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str) and not part.get("thought"):
            where, label = part["text"], None
        elif isinstance(part.get("functionCall"), dict):
            where, label = json.dumps(part["functionCall"], ensure_ascii=False), "tool call"
        elif isinstance(part.get("functionResponse"), dict):
            where, label = json.dumps(part["functionResponse"], ensure_ascii=False), "tool result"
        else:
            continue
        if any(w in where.lower() for w in words):
            if label is None:
                return None
            tool = part.get("functionCall") or part.get("functionResponse") or {}
            return f"{label} ({tool.get('name') or '?'})"
    return None


def _label(role: str, content: str, marked: str, *, said: int, calls: int, results: int) -> str:
    """What a hit is to a person: a tool's call or result is no one's words, even in a
    message that also says something; the tool is named."""
    if calls or results:
        found = _tool_part(content, _marked_words(marked))
        if found is not None:
            return found
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
    rows: list[Any] = []
    for sql in (_MESSAGES, _SUBAGENTS):
        text = sql.format(start=HIT_START, end=HIT_END, parts=_PARTS, ws=ws)
        rows.extend(store._query(text, params))
    rows.sort(key=lambda r: r[0], reverse=True)  # the newest hit first, of either kind
    order: list[str] = []
    hits: dict[str, list[SearchHit]] = {}
    for _, sid, idx, role, agent, marked, content, said, calls, results in rows[:limit]:
        if sid not in hits:
            order.append(sid)
            hits[sid] = []
        if len(hits[sid]) < per_session:
            label = _label(role, content, marked, said=said, calls=calls, results=results)
            if agent:  # a subagent's words (or its calls), not the conversation's
                label = f"{label} ({agent} agent)"
            hits[sid].append(SearchHit.from_marked(sid, idx, label, marked))
    out: list[SessionMatch] = []
    for sid in order:
        info = store.get(sid)
        if info is not None:
            out.append(SessionMatch(info, hits[sid]))
    return out
