"""The store: schema and migration, corrupt files, search, fork/rename/delete/export."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gemtui.store import SCHEMA_VERSION, SessionNotFoundError, SessionStore, open_database
from gemtui.store.db import StoreVersionError
from gemtui.store.schema import MIGRATIONS
from gemtui.wire import Content, FunctionCall, FunctionResponse, Part


def _store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions.db")


def _conversation(store: SessionStore, title: str = "", workspace: str = "/ws") -> str:
    sid = store.create_session(
        title=title, workspace=workspace, provider="gemini", model="gemini-2.5-pro"
    )
    store.add_message(sid, "user", Content.user("How do I parse TOML in Python?"))
    call = FunctionCall(id="c1", name="read_file", args={"path": "pyproject.toml"})
    store.add_message(sid, "model", Content(role="model", parts=[Part(function_call=call)]))
    resp = FunctionResponse(id="c1", name="read_file", response={"output": "[project]\nname='x'"})
    store.add_message(sid, "user", Content(role="user", parts=[Part(function_response=resp)]))
    store.add_message(sid, "model", Content.model("Use tomllib from the standard library."))
    return sid


def test_new_store_is_wal_at_current_version_in_data_dir(isolated_home: Path) -> None:
    store = SessionStore()
    assert store.path == isolated_home / "data" / "sessions.db"
    mode = store._conn.execute("PRAGMA journal_mode").fetchone()[0]
    version = store._conn.execute("PRAGMA user_version").fetchone()[0]
    timeout = store._conn.execute("PRAGMA busy_timeout").fetchone()[0]
    assert (mode, version) == ("wal", SCHEMA_VERSION)
    assert timeout >= 5000


def test_v1_store_is_migrated_keeping_its_sessions_and_making_them_searchable(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0] + "\nPRAGMA user_version = 1;")
    body = json.dumps(Content.user("remember the walrus migration").to_wire())
    conn.execute("INSERT INTO sessions VALUES ('old1', 'Old one', '/ws', 'gemini', 'm', 1.0, 2.0)")
    conn.execute(
        "INSERT INTO messages (session_id, idx, role, content, created) VALUES ('old1', 0, 'user', ?, 1.0)",
        (body,),
    )
    conn.commit()
    conn.close()

    store = SessionStore(path)
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    info = store.get("old1")
    assert info is not None
    assert info.title == "Old one"
    assert info.messages == 1
    assert info.turns == 1
    assert store.load_history("old1") == [Content.user("remember the walrus migration")]
    assert [m.session.id for m in store.search("walrus")] == ["old1"]


def test_store_from_a_newer_gemtui_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    with pytest.raises(StoreVersionError):
        open_database(path)
    assert path.exists()
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_garbage_file_is_moved_aside_with_a_message_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sessions.db"
    path.write_bytes(b"this is not a database at all" * 100)
    store = _store(tmp_path)
    moved = list(tmp_path.glob("sessions.db.corrupt-*"))
    assert len(moved) == 1
    assert moved[0].read_bytes() == b"this is not a database at all" * 100
    err = capsys.readouterr().err
    assert "could not be read" in err
    assert str(moved[0]) in err
    assert store.list_sessions() == []


def test_damaged_pages_fail_the_check_and_the_file_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    store = _store(tmp_path)
    for i in range(200):
        sid = store.create_session(title=f"session {i}")
        store.add_message(sid, "user", Content.user("filler text " * 40))
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(page * 3, min(len(data), page * 12)):
        data[offset] = 0xA5
    path.write_bytes(bytes(data))
    store = SessionStore(path, verify=True)
    assert len(list(tmp_path.glob("sessions.db.corrupt-*"))) == 1
    assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_sqlite_header_over_garbage_is_moved_aside_by_sqlites_own_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past the header check, SQLite itself says SQLITE_NOTADB: real damage, moved aside."""
    path = tmp_path / "sessions.db"
    garbage = b"SQLite format 3\x00" + bytes(range(256)) * 16
    path.write_bytes(garbage)
    store = _store(tmp_path)
    (moved,) = tmp_path.glob("sessions.db.corrupt-*")
    assert moved.read_bytes() == garbage
    assert str(moved) in capsys.readouterr().err
    assert store.list_sessions() == []


def test_search_finds_words_and_prefixes_with_highlighted_spans(tmp_path: Path) -> None:
    store = _store(tmp_path)
    sid = _conversation(store)
    _conversation(store, workspace="/other")
    matches = store.search("tomll")
    assert {m.session.id for m in matches} >= {sid}
    hit = matches[0].hits[0]
    start, end = hit.spans[0]
    assert hit.snippet[start:end].lower() == "tomllib"
    assert store.search("read_file pyproject")  # tool calls are searchable too
    assert [m.session.id for m in store.search("tomllib", workspace="/ws")] == [sid]
    assert store.search("'\"*(") == []  # punctuation never reaches FTS5 as syntax


def test_history_round_trip_is_exact(tmp_path: Path) -> None:
    store = _store(tmp_path)
    sid = _conversation(store)
    history = store.load_history(sid)
    assert len(history) == 4
    assert history[1].parts[0].function_call is not None
    assert history[2].parts[0].function_response is not None
    info = store.get(sid)
    assert info is not None
    assert info.messages == 4
    assert info.turns == 1


def test_resolve_latest_prefix_and_unknown(tmp_path: Path) -> None:
    store = _store(tmp_path)
    first = _conversation(store, workspace="/a")
    second = _conversation(store, workspace="/b")
    assert store.resolve("latest").id == second
    assert store.resolve("latest", workspace="/a").id == first
    assert store.resolve(first[:10]).id == first
    with pytest.raises(SessionNotFoundError):
        store.resolve("zzzz")


def test_fork_copies_the_history_up_to_a_message(tmp_path: Path) -> None:
    store = _store(tmp_path)
    sid = _conversation(store, title="Parsing")
    new = store.fork(sid, 1)
    assert store.load_history(new) == store.load_history(sid)[:1]
    info = store.get(new)
    assert info is not None
    assert info.parent_id == sid
    assert info.title == "Parsing (fork)"
    assert len(store.load_history(sid)) == 4  # the original is untouched


def test_rename_and_delete(tmp_path: Path) -> None:
    store = _store(tmp_path)
    sid = _conversation(store)
    store.rename(sid, "  TOML notes ")
    assert store.get(sid).title == "TOML notes"  # type: ignore[union-attr]
    store.add_tool_call(sid, "c1", "read_file", {"path": "x"}, "success", output="ok")
    store.add_usage(sid, input=10, output=5, total=15)
    assert store.delete(sid)
    assert store.get(sid) is None
    assert store.search("tomllib") == []
    left = store._conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    assert left == 0
    assert store._conn.execute("SELECT count(*) FROM tool_calls").fetchone()[0] == 0


def test_replace_history_starts_a_new_epoch_and_keeps_old_text_searchable(tmp_path: Path) -> None:
    store = _store(tmp_path)
    sid = _conversation(store)
    summary = [Content.user("<summary>we chose tomllib</summary>"), Content.model("Got it.")]
    store.replace_history(sid, summary)
    assert store.load_history(sid) == summary
    assert store.get(sid).messages == 2  # type: ignore[union-attr]
    assert store.search("pyproject")


def test_exports(tmp_path: Path) -> None:
    store = _store(tmp_path)
    sid = _conversation(store, title="TOML")
    store.add_usage(sid, model="gemini-2.5-pro", input=100, output=20, total=120)
    md = store.export_markdown(sid)
    assert md.startswith("# TOML")
    assert "## You" in md
    assert "Use tomllib" in md
    assert "Tool call: `read_file`" in md
    doc = json.loads(store.export_json(sid))
    assert doc["session"]["id"] == sid
    assert doc["session"]["tokens"] == 120
    assert doc["history"][0] == {
        "role": "user",
        "parts": [{"text": "How do I parse TOML in Python?"}],
    }
    assert doc["usage"][0]["total"] == 120


def test_list_sorts_filters_and_pages(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ids = [
        store.create_session(title=f"t{i:02d}", workspace="/ws", created=1000.0 + i)
        for i in range(30)
    ]
    store.add_message(ids[3], "user", Content.user("a"))
    store.set_updated(ids[3], 500.0)
    assert [s.id for s in store.list_sessions(limit=5)] == ids[::-1][:5]
    assert store.list_sessions(sort="size", limit=1)[0].id == ids[3]
    assert store.list_sessions(sort="name", limit=1)[0].title == "t00"
    assert [s.title for s in store.list_sessions(text="t2", sort="name")][:2] == ["t20", "t21"]
    assert len(store.list_sessions(limit=10, offset=25)) == 5


def test_secrets_are_masked_before_they_reach_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaSyTOPSECRET-1234567890")
    store = _store(tmp_path)
    sid = store.create_session()
    store.add_message(sid, "user", Content.user("my key is AIzaSyTOPSECRET-1234567890, keep it"))
    store.add_tool_call(
        sid,
        "c",
        "run_shell_command",
        {"command": "env"},
        "success",
        output="GEMINI_API_KEY=AIzaSyTOPSECRET-1234567890",
    )
    store.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("sessions.db*"))
    assert b"TOPSECRET" not in raw


def test_a_secret_with_json_escapes_is_redacted_in_stored_json() -> None:
    from gemtui.redact import MASK, Redactor

    secret = 'sk-"quoted\\back'
    stored = json.dumps({"text": f"my key is {secret}"})
    assert secret not in Redactor([secret])(stored).replace("\\\\", "\\")
    assert MASK in Redactor([secret])(stored)
