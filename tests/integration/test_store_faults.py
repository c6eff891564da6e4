"""The store never discards a healthy database (issue 9, E.1).

A full disk, a read-only store, an I/O error or a store that cannot be opened leave the
database byte-identical, with nothing moved aside; the person is told that this session
is not being saved, and why; the run still answers and exits 0. ``gemtui sessions list``
on a store it cannot read prints one line and exits 1. Only real damage moves a file
aside (tests/unit/store/test_store.py keeps proving that).
"""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.headless import run_headless
from gemtui.store.recorder import NOT_SAVED
from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, write_fast_config
from .store_faults import (
    as_unprivileged,
    aside,
    digest,
    failing_io,
    gemtui_command,
    healthy_store,
    mount_namespace,
    page_capped,
    saved_rows,
)

ANSWER = "Still answering, saved or not."


def _db(home: Path) -> Path:
    return home / "data" / "sessions.db"


def _run(
    args: list[str], env: dict[str, str], cwd: Path, *, unprivileged: bool = False
) -> subprocess.CompletedProcess[str]:
    command = gemtui_command(*args)
    return subprocess.run(
        as_unprivileged(command) if unprivileged else command,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _in_process(prompt: str, workspace: Path, **kw: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(RunOptions(workspace, prompt, **kw), out, err)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()


def _told_once(stderr: str, *words: str) -> None:
    lines = [line for line in stderr.splitlines() if NOT_SAVED in line]
    assert len(lines) == 1, stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert "Traceback" not in stderr


@pytest.fixture
def env(mock_llm_thread: MockLLMServer, isolated_home: Path) -> dict[str, str]:
    write_fast_config(isolated_home)
    return gemtui_env(isolated_home, mock_llm_thread.url)


# -- read-only -----------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["file", "file and folder"])
def test_read_only_store_is_untouched_and_the_run_says_it_is_not_saved(
    what: str,
    env: dict[str, str],
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
) -> None:
    db = _db(isolated_home)
    healthy_store(db)
    before = digest(db)
    db.chmod(0o444)
    if what == "file and folder":
        db.parent.chmod(0o555)
    try:
        mock_llm_thread.enqueue({"text": ANSWER})
        proc = _run(["-p", "hello"], env, workspace, unprivileged=True)
        listed = _run(["sessions", "list", "--json"], env, workspace, unprivileged=True)
    finally:
        db.parent.chmod(0o755)
        db.chmod(0o644)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ANSWER
    _told_once(proc.stderr, "read-only", str(db))
    assert digest(db) == before
    assert aside(db.parent) == []
    if what == "file":  # readable: the list still works
        assert listed.returncode == 0, listed.stderr
        assert sorted(r["title"] for r in json.loads(listed.stdout)) == [
            "saved session 0",
            "saved session 1",
            "saved session 2",
        ]
    else:  # SQLite cannot even read a WAL store whose folder it may not write
        assert listed.returncode == 1
        assert listed.stdout == ""
        assert listed.stderr.count("\n") == 1
        assert "read-only" in listed.stderr
        assert "Traceback" not in listed.stderr


def test_resume_from_a_read_only_store_continues_unsaved(
    env: dict[str, str], mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    db = _db(isolated_home)
    healthy_store(db)
    before = digest(db)
    db.chmod(0o444)
    try:
        mock_llm_thread.enqueue({"text": ANSWER})
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            (sid,) = conn.execute("SELECT id FROM sessions ORDER BY updated DESC").fetchone()
        proc = _run(["-p", "and then?", "--resume", sid[:8]], env, workspace, unprivileged=True)
    finally:
        db.chmod(0o644)
    assert proc.returncode == 0, proc.stderr
    _told_once(proc.stderr, "read-only")
    texts = [c["parts"][0]["text"] for c in mock_llm_thread.requests[-1].json["contents"]]
    assert texts[-1] == "and then?"
    assert texts[0].startswith("old question")
    assert digest(db) == before
    assert aside(db.parent) == []


# -- full disk -----------------------------------------------------------------------------

_FULL_DISK_SCRIPT = """
set -u
mount -t tmpfs -o size=256k tmpfs "$DATA" || exit 90
cp "$STAGE/sessions.db" "$DATA/sessions.db"
dd if=/dev/zero of="$DATA/filler" bs=4k 2>/dev/null
"$@" -p hello > "$OUT/run.out" 2> "$OUT/run.err"; echo $? > "$OUT/run.rc"
"$@" sessions list > "$OUT/list.out" 2> "$OUT/list.err"; echo $? > "$OUT/list.rc"
ls -a "$DATA" > "$OUT/files"
cp "$DATA/sessions.db" "$OUT/after.db"
"""


def test_full_disk_leaves_the_store_byte_identical(
    env: dict[str, str],
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
) -> None:
    """A real full disk: a tmpfs filled to the last byte, in a private mount namespace."""
    prefix = mount_namespace()
    if prefix is None:  # no tmpfs may be mounted here: SQLite's own SQLITE_FULL instead
        _full_from_the_first_write(env, mock_llm_thread, isolated_home, workspace)
        return
    stage, out = tmp_path / "stage", tmp_path / "out"
    stage.mkdir()
    out.mkdir()
    healthy_store(stage / "sessions.db")
    _db(isolated_home).parent.mkdir(parents=True)
    mock_llm_thread.enqueue({"text": ANSWER})
    env = {**env, "DATA": str(_db(isolated_home).parent), "STAGE": str(stage), "OUT": str(out)}
    subprocess.run(
        [*prefix, "sh", "-c", _FULL_DISK_SCRIPT, "sh", *gemtui_command()],
        env=env,
        cwd=workspace,
        check=True,
        timeout=120,
    )
    stderr = (out / "run.err").read_text()
    assert (out / "run.rc").read_text().strip() == "0", stderr
    assert (out / "run.out").read_text().strip() == ANSWER
    _told_once(stderr, "disk is full")
    assert digest(out / "after.db") == digest(stage / "sessions.db")
    assert not any(".corrupt" in name for name in (out / "files").read_text().split())
    list_err = (out / "list.err").read_text()
    assert (out / "list.rc").read_text().strip() == "1"
    assert list_err.count("\n") == 1
    assert "disk is full" in list_err
    assert "Traceback" not in list_err


def _full_from_the_first_write(
    env: dict[str, str], mock_llm_thread: MockLLMServer, home: Path, workspace: Path
) -> None:
    """Where no tmpfs can be mounted: the file may not grow by a single page.

    A write that fits in a page already there still succeeds, so here the saved
    sessions (not every byte) are what must be unchanged.
    """
    db = _db(home)
    healthy_store(db)
    old = saved_rows(db)
    with pytest.MonkeyPatch.context() as patch:
        for key in ("GEMTUI_HOME", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"):
            patch.setenv(key, env[key])
        patch.setattr(sqlite3, "connect", page_capped(sqlite3.connect, extra_pages=0))
        mock_llm_thread.enqueue({"text": ANSWER})
        code, out, err = _in_process("x" * 20_000, workspace)
    assert code == 0, err
    assert out.strip() == ANSWER
    _told_once(err, "disk is full")
    assert saved_rows(db) == old
    assert aside(db.parent) == []


def test_disk_filling_mid_session_stops_saving_once_and_the_turn_goes_on(
    env: dict[str, str],
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SQLite itself says SQLITE_FULL once the file would grow past a few pages."""
    db = _db(isolated_home)
    healthy_store(db)
    old = saved_rows(db)
    big = "".join(f"line {i:05d} of a file too big for the disk\n" for i in range(1500))
    (workspace / "big.txt").write_text(big)
    for key in ("GEMTUI_HOME", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.setattr(sqlite3, "connect", page_capped(sqlite3.connect, extra_pages=6))
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "big.txt"}, "id": "c1"}]},
        {"text": "Read it all."},
    )
    code, out, err = _in_process("read big.txt", workspace, approval_mode="yolo")
    monkeypatch.undo()
    assert code == 0, err
    assert out.strip().endswith("Read it all.")
    _told_once(err, "any more", "disk is full")
    sent = json.dumps(mock_llm_thread.requests[-1].json)
    assert "line 01499 of a file" in sent  # nothing the tool read was lost
    assert saved_rows(db) == old
    assert aside(db.parent) == []
    with sqlite3.connect(db) as conn:  # what was saved before the disk filled is kept
        titles = [r[0] for r in conn.execute("SELECT title FROM sessions")]
    assert "read big.txt" in titles


# -- I/O errors and a store that cannot be opened ------------------------------------------


@pytest.mark.parametrize("when", ["opening", "writing"])
def test_io_error_leaves_the_store_byte_identical(
    when: str,
    env: dict[str, str],
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = _db(isolated_home)
    healthy_store(db)
    before = digest(db)
    for key in ("GEMTUI_HOME", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.setenv(key, env[key])
    if when == "opening":
        fail = lambda sql: "sqlite_master" in sql  # noqa: E731 - the first read at open
    else:
        fail = lambda sql: sql.lstrip().upper().startswith(("INSERT", "UPDATE"))  # noqa: E731
    monkeypatch.setattr(sqlite3, "connect", failing_io(sqlite3.connect, fail=fail))
    mock_llm_thread.enqueue({"text": ANSWER})
    code, out, err = _in_process("hello", workspace)
    monkeypatch.undo()
    assert code == 0, err
    assert out.strip() == ANSWER
    _told_once(err, "I/O error", "SQLITE_IOERR")
    assert digest(db) == before
    assert aside(db.parent) == []


def test_store_that_cannot_be_opened_is_left_alone_and_listing_says_why(
    env: dict[str, str], mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    db = _db(isolated_home)
    healthy_store(db)
    before = digest(db)
    (db.parent / "sessions.db-wal").mkdir()  # SQLite answers SQLITE_CANTOPEN
    mock_llm_thread.enqueue({"text": ANSWER})
    proc = _run(["-p", "hello"], env, workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ANSWER
    _told_once(proc.stderr, "cannot be opened", "SQLITE_CANTOPEN")
    listed = _run(["sessions", "list"], env, workspace)
    assert listed.returncode == 1
    assert listed.stdout == ""
    assert listed.stderr.count("\n") == 1
    assert "SQLITE_CANTOPEN" in listed.stderr
    assert "Traceback" not in listed.stderr
    resumed = _run(["-p", "more", "--resume", "latest"], env, workspace)
    assert resumed.returncode == 42
    assert "cannot resume" in resumed.stderr
    assert "Traceback" not in resumed.stderr
    assert digest(db) == before
    assert aside(db.parent) == []


def test_a_damaged_store_is_moved_aside_and_the_run_says_where_once(
    env: dict[str, str], mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    db = _db(isolated_home)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 16)  # SQLITE_NOTADB
    mock_llm_thread.enqueue({"text": ANSWER})
    proc = _run(["-p", "hello", "--output-format", "stream-json"], env, workspace)
    assert proc.returncode == 0, proc.stderr
    (moved,) = aside(db.parent)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["type"] == "init"  # the notice follows init, as a warning
    warnings = [x for x in lines if x["type"] == "error" and x.get("kind") == "warning"]
    assert len(warnings) == 1
    assert moved in warnings[0]["message"]
    assert proc.stderr.count(moved) == 1
    assert "Traceback" not in proc.stderr
    listed = _run(["sessions", "list", "--json"], env, workspace)
    assert [r["title"] for r in json.loads(listed.stdout)] == ["hello"]  # saved in the new one
