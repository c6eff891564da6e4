"""The store's schema as ordered migrations; ``PRAGMA user_version`` says how many ran.

Migrations are append-only: a released step is never edited, a change is a new step. Each
step runs in its own transaction, so a crash mid-upgrade leaves the previous version.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_V1 = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    workspace TEXT NOT NULL DEFAULT '',
    provider TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX messages_session ON messages(session_id, idx);
"""

# v2: counters kept on the session row (the browser lists without aggregating a million
# messages), history epochs (a compression replaces the history; old rows stay searchable),
# imported sessions, forks, tool calls, usage per turn and full-text search.
_V2 = """
ALTER TABLE sessions ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tokens_input INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tokens_output INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tokens_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN source TEXT NOT NULL DEFAULT 'gemtui';
ALTER TABLE sessions ADD COLUMN parent_id TEXT;
ALTER TABLE messages ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN text TEXT NOT NULL DEFAULT '';
DROP INDEX messages_session;
CREATE INDEX messages_session ON messages(session_id, epoch, idx);
CREATE INDEX sessions_updated ON sessions(updated);
CREATE INDEX sessions_workspace ON sessions(workspace, updated);
CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    args TEXT NOT NULL,
    state TEXT NOT NULL,
    decision TEXT,
    output TEXT,
    error TEXT,
    duration_ms REAL,
    created REAL NOT NULL
);
CREATE INDEX tool_calls_session ON tool_calls(session_id);
CREATE TABLE usage (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    prompt_id TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    input INTEGER NOT NULL DEFAULT 0,
    output INTEGER NOT NULL DEFAULT 0,
    thoughts INTEGER NOT NULL DEFAULT 0,
    cached INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL
);
CREATE INDEX usage_session ON usage(session_id);
CREATE VIRTUAL TABLE messages_fts USING fts5(
    text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
UPDATE messages SET text = coalesce(json_extract(content, '$.parts[0].text'), '');
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
UPDATE sessions SET
    message_count = (SELECT count(*) FROM messages m WHERE m.session_id = sessions.id),
    turns = (SELECT count(*) FROM messages m WHERE m.session_id = sessions.id AND m.role = 'user'
             AND json_extract(m.content, '$.parts[0].functionResponse') IS NULL);
"""

# v3: why a call was not run (rejected, denied, needs approval…), so a resumed card says
# "rejected" as the live one did rather than "failed".
_V3 = """
ALTER TABLE tool_calls ADD COLUMN refusal TEXT;
"""

# v4: what a subagent said and did, stored under the parent's call that started it (its
# task, its answers, its calls' results; appended only, in the order they happened), kept
# apart from ``messages`` so the conversation's history never holds a child's turns;
# searchable on its own index. A model call's usage names the subagent call it ran under.
_V4 = """
CREATE TABLE subagent_messages (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    parent_call TEXT NOT NULL,
    agent TEXT NOT NULL DEFAULT '',
    idx INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    text TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL
);
CREATE INDEX subagent_messages_session ON subagent_messages(session_id, parent_call, id);
CREATE VIRTUAL TABLE subagent_messages_fts USING fts5(
    text, content='subagent_messages', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER subagent_messages_ai AFTER INSERT ON subagent_messages BEGIN
    INSERT INTO subagent_messages_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER subagent_messages_ad AFTER DELETE ON subagent_messages BEGIN
    INSERT INTO subagent_messages_fts(subagent_messages_fts, rowid, text)
    VALUES ('delete', old.id, old.text);
END;
ALTER TABLE usage ADD COLUMN parent_call TEXT;
"""

# v5: agents side by side (issue 36): one row per agent run (a headless ``-p`` run, each
# agent of the TUI's fleet, a background subagent) with its state, so ``gemtui agents``
# in another terminal lists what runs in this folder. Its own table: an agent row
# outlives nothing (no foreign key), since a run whose session was deleted still ran.
_V5 = """
CREATE TABLE agents (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL DEFAULT '',
    parent TEXT,
    name TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    pid INTEGER NOT NULL,
    workspace TEXT NOT NULL,
    branch TEXT,
    provider TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    started REAL NOT NULL,
    ended REAL,
    tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    error TEXT,
    updated REAL NOT NULL
);
CREATE INDEX agents_workspace ON agents(workspace, updated);
"""

# v6: where the money went (issue 37): `gemtui usage` and the daily cap read the usage of
# the last days across every session, by time; without an index that is a full scan.
_V6 = """
CREATE INDEX usage_created ON usage(created);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V5, _V6)
"""Step ``i`` brings a store from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)
