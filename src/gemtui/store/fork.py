"""Forking a saved session: a new session with part of the history, its cost and its
delegations' stories, in the caller's transaction (``StoreCore.fork``)."""

from __future__ import annotations

import sqlite3

from gemtui.store.records import SessionInfo
from gemtui.wire.cancel_note import CANCELLED_NOTE

__all__ = ["fork_session"]


def fork_session(
    c: sqlite3.Connection, info: SessionInfo, new_id: str, stop: int, now: float
) -> None:
    """Write session ``new_id`` (created at ``now``): ``info``'s messages before index
    ``stop``, the usage recorded before them and the subagent stories of the calls they hold."""
    session_id = info.id
    c.execute(
        "INSERT INTO sessions (id, title, workspace, provider, model, created, updated,"
        " parent_id)"
        " VALUES (?,?,?,?,?,?,?,?)",
        (
            new_id,
            f"{info.title} (fork)".strip(),
            info.workspace,
            info.provider,
            info.model,
            now,
            now,
            session_id,
        ),
    )
    c.execute(
        "INSERT INTO messages (session_id, idx, epoch, role, content, text, created)"
        " SELECT ?, m.idx, 0, m.role, m.content, m.text, ? FROM messages m"
        " JOIN sessions s ON s.id = m.session_id"
        " WHERE m.session_id = ? AND m.epoch = s.epoch AND m.idx < ? ORDER BY m.idx",
        (new_id, now, session_id, stop),
    )
    c.execute(
        "UPDATE sessions SET"
        " message_count = (SELECT count(*) FROM messages WHERE session_id = ?),"
        " turns = (SELECT count(*) FROM messages WHERE session_id = ? AND role = 'user'"
        " AND content LIKE '%\"text\"%' AND coalesce(text, '') NOT LIKE ?) WHERE id = ?",
        (new_id, new_id, f"%{CANCELLED_NOTE}%", new_id),  # prompts, as ``is_prompt`` counts
    )
    _copy_usage(c, session_id, new_id, stop)
    _copy_subagents(c, session_id, new_id)


def _copy_subagents(c: sqlite3.Connection, source: str, target: str) -> None:
    """A fork carries the stories of the delegations its history holds (a call
    ``p1``'s, and those of the agents it started in turn, ``p1/…``)."""
    c.execute(
        "INSERT INTO subagent_messages (session_id, parent_call, agent, idx, role, content,"
        " text, created) SELECT ?, parent_call, agent, idx, role, content, text, created"
        " FROM subagent_messages WHERE session_id = ?"
        " AND substr(parent_call, 1, instr(parent_call || '/', '/') - 1) IN ("
        "SELECT json_extract(p.value, '$.functionCall.id') FROM messages m,"
        " json_each(m.content, '$.parts') p WHERE m.session_id = ?"
        " AND json_type(p.value, '$.functionCall') IS NOT NULL) ORDER BY id",
        (target, source, target),
    )


def _copy_usage(c: sqlite3.Connection, source: str, target: str, stop: int) -> None:
    """A fork carries what its history cost: the usage recorded before the first
    message it leaves out (all of it for a whole fork), and the counters summed anew."""
    cut = c.execute(
        "SELECT m.created FROM messages m JOIN sessions s ON s.id = m.session_id"
        " WHERE m.session_id = ? AND m.epoch = s.epoch AND m.idx >= ? ORDER BY m.idx LIMIT 1",
        (source, stop),
    ).fetchone()
    c.execute(
        "INSERT INTO usage (session_id, prompt_id, model, input, output, thoughts, cached,"
        " total, created, parent_call) SELECT ?, prompt_id, model, input, output, thoughts,"
        " cached, total, created, parent_call FROM usage"
        " WHERE session_id = ? AND (? IS NULL OR created < ?) ORDER BY id",
        (target, source, None if cut is None else cut[0], None if cut is None else cut[0]),
    )
    c.execute(
        "UPDATE sessions SET"
        " tokens_input = (SELECT coalesce(sum(input), 0) FROM usage WHERE session_id = ?),"
        " tokens_output = (SELECT coalesce(sum(output + thoughts), 0) FROM usage"
        " WHERE session_id = ?),"
        " tokens_total = (SELECT coalesce(sum(total), 0) FROM usage WHERE session_id = ?)"
        " WHERE id = ?",
        (target, target, target, target),
    )
