"""Real store faults for tests: a healthy store to protect, file digests, and the faults.

Every fault is made by SQLite or the kernel where that is possible (a tmpfs that is full,
``chmod``, ``PRAGMA max_page_count``, a ``-wal`` that is a folder); only the I/O error is
injected, as a connection that fails a statement the way SQLite reports one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gemtui.store import SessionStore
from gemtui.wire import Content

SQLITE_IOERR_WRITE = 778
SQLITE_IOERR_READ = 266

NO_DAC_OVERRIDE = [
    "setpriv",
    "--inh-caps=-all",
    "--bounding-set=-dac_override,-dac_read_search,-fowner",
]
"""Root ignores file modes; without these capabilities it obeys them like anyone else."""


def healthy_store(path: Path, sessions: int = 3) -> list[str]:
    """A store with ``sessions`` saved conversations, closed cleanly (no -wal, no -shm)."""
    ids = []
    with SessionStore(path) as store:
        for i in range(sessions):
            sid = store.create_session(
                title=f"saved session {i}", workspace="/old", provider="gemini", model="m"
            )
            store.add_message(sid, "user", Content.user(f"old question {i}"))
            store.add_message(sid, "model", Content.model(f"old answer {i}"))
            ids.append(sid)
    return ids


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def aside(folder: Path) -> list[str]:
    """Files a store was moved to (``sessions.db.corrupt-…``): none may appear."""
    return sorted(p.name for p in folder.iterdir() if ".corrupt" in p.name)


def saved_rows(path: Path) -> list[tuple[Any, ...]]:
    """The saved sessions and their messages, read without gemtui (read-only URI)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT s.id, s.title, m.idx, m.content FROM sessions s"
            " JOIN messages m ON m.session_id = s.id WHERE s.workspace = '/old'"
            " ORDER BY s.id, m.idx"
        ).fetchall()
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    return rows


def can_drop_privileges() -> bool:
    return os.geteuid() != 0 or shutil.which("setpriv") is not None


def as_unprivileged(args: list[str]) -> list[str]:
    """``args`` run so that file modes apply (root drops DAC override)."""
    return [*NO_DAC_OVERRIDE, *args] if os.geteuid() == 0 else args


def mount_namespace() -> list[str] | None:
    """A command prefix giving a private mount namespace where tmpfs may be mounted."""
    if shutil.which("unshare") is None:
        return None
    for prefix in (["unshare", "-m"], ["unshare", "-rm"]):
        if os.geteuid() != 0 and prefix == ["unshare", "-m"]:
            continue
        probe = subprocess.run(
            [*prefix, "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null"],
            capture_output=True,
        )
        if probe.returncode == 0:
            return prefix
    return None


def gemtui_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "gemtui", *args]


Connect = Callable[..., sqlite3.Connection]


def page_capped(real: Connect, extra_pages: int) -> Connect:
    """``sqlite3.connect`` whose connections may grow the file by ``extra_pages`` only.

    ``PRAGMA max_page_count`` makes SQLite itself answer SQLITE_FULL once the file would
    pass that size: a real full-disk condition, at a size the test chooses.
    """

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + extra_pages}")
        return conn

    return connect


def failing_io(real: Connect, *, fail: Callable[[str], bool]) -> Connect:
    """``sqlite3.connect`` whose statements matching ``fail`` raise SQLITE_IOERR.

    The error is what SQLite raises for a failed read or write (OperationalError "disk
    I/O error" with the extended result code); the database file is never touched.
    """

    def io_error(sql: str) -> sqlite3.OperationalError:
        write = not sql.lstrip().upper().startswith(("SELECT", "PRAGMA"))
        exc = sqlite3.OperationalError("disk I/O error")
        exc.sqlite_errorcode = SQLITE_IOERR_WRITE if write else SQLITE_IOERR_READ
        exc.sqlite_errorname = "SQLITE_IOERR_WRITE" if write else "SQLITE_IOERR_READ"
        return exc

    class IOErrorConnection(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
            if fail(sql):
                raise io_error(sql)
            return super().execute(sql, *args)

        def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
            if fail(sql):
                raise io_error(sql)
            return super().executemany(sql, *args)

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        return real(*args, factory=IOErrorConnection, **kwargs)

    return connect
