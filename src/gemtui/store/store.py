"""StoreCore: every read and write of saved sessions, each write its own short transaction.

The bottom of the store: recording, search and export sit above it and take a core;
the facade callers use is ``gemtui.store.SessionStore`` (``store/facade.py``).

One connection per store object, guarded by a lock so the TUI's worker threads and the
event loop can share it. Writers take ``BEGIN IMMEDIATE`` so two processes queue on the
busy timeout instead of failing on a lock upgrade.

Every text that enters the file (messages, tool calls, titles, renames) is masked by
``gemtui.redact`` first: the store is a plain file and a person may paste a key or a tool
may print one. JSON columns are masked value by value before they are serialised.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from gemtui.redact import redact, redact_data, redact_wire_content
from gemtui.store.db import open_database, rollback
from gemtui.store.records import (
    SessionInfo,
    content_text,
    is_prompt,
)
from gemtui.wire import Content

__all__ = ["SORTS", "SessionNotFoundError", "StoreCore"]

SORTS: dict[str, str] = {
    "date": "updated DESC",
    "size": "message_count DESC, updated DESC",
    "name": "title COLLATE NOCASE ASC, updated DESC",
}
"""Sort keys of the session list, newest first by default."""

_COLUMNS = (
    "id, title, workspace, provider, model, created, updated, message_count, turns, "
    "tokens_input, tokens_output, tokens_total, imported, source, parent_id"
)


class SessionNotFoundError(LookupError):
    """No session (or more than one) answers to a reference."""


def _info(row: Sequence[Any]) -> SessionInfo:
    return SessionInfo(
        id=row[0],
        title=row[1],
        workspace=row[2],
        provider=row[3],
        model=row[4],
        created=row[5],
        updated=row[6],
        messages=row[7],
        turns=row[8],
        tokens_input=row[9],
        tokens_output=row[10],
        tokens=row[11],
        imported=bool(row[12]),
        source=row[13],
        parent_id=row[14],
    )


def _json(value: Any, *, keys: bool = False) -> str:
    """``value`` as stored JSON, every string in it masked (the JSON stays valid);
    ``keys`` masks the dict keys too (names a model chose)."""
    return json.dumps(
        redact_data(value, keys=keys), ensure_ascii=False, default=lambda o: redact(str(o))
    )


def _content_json(content: Content) -> str:
    """A message as stored JSON: masked values and masked function-call argument names."""
    return json.dumps(
        redact_wire_content(content.to_wire()),
        ensure_ascii=False,
        default=lambda o: redact(str(o)),
    )


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class StoreCore:
    """The saved sessions of this user (``data_dir()/sessions.db`` unless told otherwise)."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        verify: bool | None = None,
        writable: bool = True,
        tell: Callable[[str], None] | None = None,
    ) -> None:
        """Open the store; raises ``StoreUnavailableError`` (file untouched) when it cannot.

        ``writable=False`` is for readers (``sessions list``): a read-only store still lists.
        ``tell`` receives the message when a damaged file was moved aside (default: stderr).
        """
        from gemtui.store.db import database_path

        self.path = path or database_path()
        if tell is None:
            self._conn = open_database(self.path, verify=verify, writable=writable)
        else:
            self._conn = open_database(self.path, verify=verify, writable=writable, tell=tell)
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                rollback(conn)
                raise

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # -- sessions ------------------------------------------------------------------------
    def create_session(
        self,
        session_id: str | None = None,
        *,
        title: str = "",
        workspace: str = "",
        provider: str = "",
        model: str = "",
        created: float | None = None,
        imported: bool = False,
        source: str = "gemtui",
        parent_id: str | None = None,
    ) -> str:
        """Create the row, or (resuming) refresh its provider, model and time."""
        sid = session_id or uuid.uuid4().hex
        now = time.time() if created is None else created
        with self._tx() as c:
            c.execute(
                "INSERT INTO sessions (id, title, workspace, provider, model, created, updated,"
                " imported, source, parent_id) VALUES (?,?,?,?,?,?,?,?,?,?)"
                " ON CONFLICT(id) DO UPDATE SET provider=excluded.provider,"
                " model=excluded.model, updated=excluded.updated",
                (
                    sid,
                    redact(title),
                    workspace,
                    provider,
                    model,
                    now,
                    now,
                    int(imported),
                    source,
                    parent_id,
                ),
            )
        return sid

    def get(self, session_id: str) -> SessionInfo | None:
        rows = self._query(f"SELECT {_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
        return _info(rows[0]) if rows else None

    def resolve(self, ref: str | None, *, workspace: str | None = None) -> SessionInfo:
        """``latest`` (in ``workspace`` when given), a full id, or an unambiguous prefix."""
        if ref in (None, "", "latest"):
            where, params = ("WHERE workspace = ?", [workspace]) if workspace else ("", [])
            rows = self._query(
                f"SELECT {_COLUMNS} FROM sessions {where} ORDER BY updated DESC LIMIT 1", params
            )
            if not rows:
                place = f" for {workspace}" if workspace else ""
                raise SessionNotFoundError(f"there is no saved session{place} to resume")
            return _info(rows[0])
        assert ref is not None
        exact = self.get(ref)
        if exact is not None:
            return exact
        rows = self._query(
            f"SELECT {_COLUMNS} FROM sessions WHERE id LIKE ? ESCAPE '\\' LIMIT 2",
            (_like(ref)[1:],),
        )
        if len(rows) == 1:
            return _info(rows[0])
        if not rows:
            raise SessionNotFoundError(f"no saved session has the id {ref!r}")
        raise SessionNotFoundError(
            f"more than one saved session starts with {ref!r}; give more of the id"
        )

    def list_sessions(
        self,
        workspace: str | None = None,
        *,
        sort: str = "date",
        limit: int = 200,
        offset: int = 0,
        text: str | None = None,
    ) -> list[SessionInfo]:
        """One page of sessions; ``text`` filters by title, workspace or model."""
        where: list[str] = []
        params: list[Any] = []
        if workspace:
            where.append("workspace = ?")
            params.append(workspace)
        if text:
            where.append(
                "(title LIKE ? ESCAPE '\\' OR workspace LIKE ? ESCAPE '\\'"
                " OR model LIKE ? ESCAPE '\\')"
            )
            params += [_like(text)] * 3
        clause = ("WHERE " + " AND ".join(where)) if where else ""
        order = SORTS.get(sort, SORTS["date"])
        rows = self._query(
            f"SELECT {_COLUMNS} FROM sessions {clause} ORDER BY {order} LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        return [_info(r) for r in rows]

    def count_sessions(self, workspace: str | None = None) -> int:
        if workspace:
            return int(
                self._query("SELECT count(*) FROM sessions WHERE workspace = ?", (workspace,))[0][0]
            )
        return int(self._query("SELECT count(*) FROM sessions")[0][0])

    def rename(self, session_id: str, title: str) -> None:
        with self._tx() as c:
            c.execute(
                "UPDATE sessions SET title = ? WHERE id = ?", (redact(title.strip()), session_id)
            )

    def set_updated(self, session_id: str, updated: float) -> None:
        """Pin the last-activity time (imports keep the original session's)."""
        with self._tx() as c:
            c.execute("UPDATE sessions SET updated = ? WHERE id = ?", (updated, session_id))

    def set_title_if_empty(self, session_id: str, title: str) -> None:
        with self._tx() as c:
            c.execute(
                "UPDATE sessions SET title = ? WHERE id = ? AND title = ''",
                (redact(title), session_id),
            )

    def delete(self, session_id: str) -> bool:
        with self._tx() as c:
            cur = c.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        return cur.rowcount > 0

    # -- messages ------------------------------------------------------------------------
    def add_message(
        self,
        session_id: str,
        role: str,
        content: Content | dict[str, Any],
        text: str | None = None,
        *,
        index: int | None = None,
    ) -> int:
        """Append one completed message to the session's current history; its index."""
        msg = content if isinstance(content, Content) else Content.model_validate(content)
        if msg.role is None:
            msg = msg.model_copy(update={"role": role})
        body = _content_json(msg)
        text = redact(content_text(msg) if text is None else text)
        now = time.time()
        with self._tx() as c:
            epoch, count = c.execute(
                "SELECT epoch, message_count FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            idx = count if index is None else index
            c.execute(
                "INSERT INTO messages (session_id, idx, epoch, role, content, text, created)"
                " VALUES (?,?,?,?,?,?,?)",
                (session_id, idx, epoch, role, body, text, now),
            )
            c.execute(
                "UPDATE sessions SET message_count = max(message_count, ?), turns = turns + ?,"
                " updated = ? WHERE id = ?",
                (idx + 1, int(is_prompt(msg)), now, session_id),
            )
        return idx

    def replace_message(self, session_id: str, index: int, content: Content) -> None:
        """Put ``content`` in place of the current history's message at ``index`` (the
        prompt saved as typed, now with the files ``@`` attached to it)."""
        body = _content_json(content)
        text = redact(content_text(content))
        with self._tx() as c:
            (epoch,) = c.execute(
                "SELECT epoch FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            row = c.execute(
                "SELECT id, created FROM messages WHERE session_id = ? AND epoch = ? AND idx = ?",
                (session_id, epoch, index),
            ).fetchone()
            if row is None:
                raise SessionNotFoundError(f"no message {index} in session {session_id}")
            c.execute("DELETE FROM messages WHERE id = ?", (row[0],))  # the FTS row goes too
            c.execute(
                "INSERT INTO messages (session_id, idx, epoch, role, content, text, created)"
                " VALUES (?,?,?,?,?,?,?)",
                (session_id, index, epoch, content.role or "user", body, text, row[1]),
            )

    def replace_history(self, session_id: str, history: Sequence[Content]) -> None:
        """Start a new epoch holding ``history`` (after a compression); old rows stay searchable."""
        now = time.time()
        with self._tx() as c:
            c.execute(
                "UPDATE sessions SET epoch = epoch + 1, updated = ? WHERE id = ?", (now, session_id)
            )
            (epoch,) = c.execute(
                "SELECT epoch FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            c.executemany(
                "INSERT INTO messages (session_id, idx, epoch, role, content, text, created)"
                " VALUES (?,?,?,?,?,?,?)",
                [
                    (
                        session_id,
                        i,
                        epoch,
                        m.role or "user",
                        _content_json(m),
                        redact(content_text(m)),
                        now,
                    )
                    for i, m in enumerate(history)
                ],
            )
            c.execute(
                "UPDATE sessions SET message_count = ? WHERE id = ?", (len(history), session_id)
            )

    def truncate_history(self, session_id: str, length: int) -> None:
        """Drop current-history messages from index ``length`` on (a prompt never sent)."""
        with self._tx() as c:
            c.execute(
                "DELETE FROM messages WHERE session_id = ? AND idx >= ?"
                " AND epoch = (SELECT epoch FROM sessions WHERE id = ?)",
                (session_id, length, session_id),
            )
            c.execute(
                "UPDATE sessions SET message_count = min(message_count, ?) WHERE id = ?",
                (length, session_id),
            )

    def _history_rows(self, session_id: str, limit: int | None = None) -> list[Any]:
        sql = (
            "SELECT m.idx, m.role, m.content, m.text FROM messages m"
            " JOIN sessions s ON s.id = m.session_id"
            " WHERE m.session_id = ? AND m.epoch = s.epoch ORDER BY m.idx"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return self._query(sql, (session_id,))

    def load_history(self, session_id: str) -> list[Content]:
        """The session's current history, exactly as the chat held it."""
        return [Content.model_validate(json.loads(r[2])) for r in self._history_rows(session_id)]

    def history_epochs(self, session_id: str) -> list[list[Content]]:
        """Every history the session has had, oldest first (a compression or a rewrite
        starts a new one), so a view can show the turns a summary replaced."""
        rows = self._query(
            "SELECT epoch, content FROM messages WHERE session_id = ? ORDER BY epoch, idx",
            (session_id,),
        )
        epochs: dict[int, list[Content]] = {}
        for epoch, body in rows:
            epochs.setdefault(epoch, []).append(Content.model_validate(json.loads(body)))
        return list(epochs.values())

    def history_head(self, session_id: str, limit: int = 12) -> list[Content]:
        """The first ``limit`` messages of the current history (a preview's worth)."""
        rows = self._history_rows(session_id, limit)
        return [Content.model_validate(json.loads(r[2])) for r in rows]

    def message_texts(self, session_id: str, limit: int = 40) -> list[tuple[str, str]]:
        """(role, text) of the first messages, for a preview without parsing JSON."""
        return [(r[1], r[3]) for r in self._history_rows(session_id, limit)]

    def fork(
        self, session_id: str, at_message_index: int | None = None, *, new_id: str | None = None
    ) -> str:
        """A new session (``new_id``, or a fresh one) holding the history up to (not
        including) ``at_message_index``, with what it cost and its delegations' stories."""
        from gemtui.store.fork import fork_session

        info = self.get(session_id)
        if info is None:
            raise SessionNotFoundError(f"no saved session has the id {session_id!r}")
        new_id = new_id or uuid.uuid4().hex
        stop = info.messages if at_message_index is None else max(0, at_message_index)
        with self._tx() as c:
            fork_session(c, info, new_id, stop, time.time())
        return new_id

    # -- tool calls and usage ------------------------------------------------------------
    def add_tool_call(
        self,
        session_id: str,
        call_id: str,
        name: str,
        args: dict[str, Any],
        state: str,
        *,
        decision: str | None = None,
        output: str | None = None,
        error: str | None = None,
        duration_ms: float | None = None,
        refusal: str | None = None,
    ) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT INTO tool_calls (session_id, call_id, name, args, state, decision, output,"
                " error, duration_ms, created, refusal) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    session_id,
                    redact(call_id),  # both come from the model, like its arguments
                    redact(name),
                    _json(args, keys=True),
                    state,
                    decision,
                    redact(output or "") or None,
                    redact(error or "") or None,
                    duration_ms,
                    time.time(),
                    refusal,
                ),
            )

    def tool_calls(self, session_id: str) -> list[dict[str, Any]]:
        rows = self._query(
            "SELECT call_id, name, args, state, decision, output, error, duration_ms, refusal"
            " FROM tool_calls"
            " WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        keys = (
            "call_id",
            "name",
            "args",
            "state",
            "decision",
            "output",
            "error",
            "duration_ms",
            "refusal",
        )
        out = [dict(zip(keys, r, strict=True)) for r in rows]
        for item in out:
            item["args"] = json.loads(item["args"])
        return out

    def add_usage(
        self,
        session_id: str,
        *,
        prompt_id: str = "",
        model: str = "",
        input: int = 0,
        output: int = 0,
        thoughts: int = 0,
        cached: int = 0,
        total: int = 0,
        parent_call: str | None = None,
    ) -> None:
        """One model call's usage; ``parent_call`` names the delegation a subagent's
        call ran under (None: the conversation's own)."""
        with self._tx() as c:
            c.execute(
                "INSERT INTO usage (session_id, prompt_id, model, input, output, thoughts, cached,"
                " total, created, parent_call) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    session_id,
                    prompt_id,
                    model,
                    input,
                    output,
                    thoughts,
                    cached,
                    total,
                    time.time(),
                    redact(parent_call) if parent_call else None,
                ),
            )
            c.execute(
                "UPDATE sessions SET tokens_input = tokens_input + ?,"
                " tokens_output = tokens_output + ?,"
                " tokens_total = tokens_total + ? WHERE id = ?",
                (input, output + thoughts, total, session_id),
            )

    def usage_since(self, since: float) -> list[tuple[str, int, int, int, int]]:
        """Every model call since ``since`` (epoch seconds), in any session: model,
        input, output, thoughts, cached (what a daily budget sums)."""
        rows = self._query(
            "SELECT model, input, output, thoughts, cached FROM usage WHERE created >= ?",
            (since,),
        )
        return [tuple(r) for r in rows]

    def usage(self, session_id: str) -> list[dict[str, Any]]:
        rows = self._query(
            "SELECT prompt_id, model, input, output, thoughts, cached, total, parent_call"
            " FROM usage WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        keys = (
            "prompt_id",
            "model",
            "input",
            "output",
            "thoughts",
            "cached",
            "total",
            "parent_call",
        )
        return [dict(zip(keys, r, strict=True)) for r in rows]
