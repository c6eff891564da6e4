"""Opening the SQLite file: WAL, busy timeout, migrations, and moving a corrupt file aside.

A store that cannot be read must never cost the person their old sessions. Only a file
that is really damaged (see ``failures``) is renamed to ``sessions.db.corrupt-<timestamp>``
(with its -wal/-shm) and replaced by a new store, with a message on stderr and in the log.
A full disk, a read-only file or folder, an I/O error or a file that cannot be opened
raise ``StoreUnavailableError`` and leave every byte where it was.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gemtui.store.failures import StoreUnavailableError, is_corruption, reason_for
from gemtui.store.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = [
    "StoreCorruptError",
    "StoreUnavailableError",
    "StoreVersionError",
    "connect",
    "database_path",
    "move_aside",
    "open_database",
]

log = logging.getLogger(__name__)

_HEADER = b"SQLite format 3\x00"
QUICK_CHECK_LIMIT = 32 * 1024 * 1024
"""Files up to this size get ``PRAGMA quick_check`` at open (a few ms); bigger ones only
the cheap checks, so the browser opens fast on a large store."""


class StoreCorruptError(Exception):
    """The file is not a usable SQLite database."""


class StoreVersionError(Exception):
    """The store was written by a newer gemtui; it is left alone, never moved aside."""


def database_path() -> Path:
    from gemtui.config.paths import data_dir

    return data_dir() / "sessions.db"


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode; writers open ``BEGIN IMMEDIATE`` themselves."""
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _looks_like_sqlite(path: Path) -> bool:
    """False only for a file that was read and is something else; unreadable is not bad."""
    try:
        with path.open("rb") as fh:
            head = fh.read(len(_HEADER))
    except OSError:
        return True  # SQLite will say why it cannot open it; that is no reason to move it
    return head == _HEADER or head == b""


def _check(conn: sqlite3.Connection, path: Path, verify: bool | None) -> None:
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    if verify is None:
        verify = path.stat().st_size <= QUICK_CHECK_LIMIT
    if verify:
        rows = conn.execute("PRAGMA quick_check").fetchall()
        if [r[0] for r in rows] != ["ok"]:
            raise StoreCorruptError("; ".join(str(r[0]) for r in rows[:3]))


def _statements(script: str) -> list[str]:
    """Split a migration into statements (trigger bodies hold semicolons of their own)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def migrate(conn: sqlite3.Connection) -> int:
    """Run the migrations this file has not seen yet; returns the version it had.

    The version is read again under the write lock, so two processes opening a new or
    old store at once migrate it once, and all steps commit together or not at all.
    """
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version == SCHEMA_VERSION:
        return version
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreVersionError(
                f"the session store has schema version {version}, newer than this gemtui "
                f"knows ({SCHEMA_VERSION}); update gemtui to open it"
            )
        for number in range(version, SCHEMA_VERSION):
            for statement in _statements(MIGRATIONS[number]):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        rollback(conn)
        raise
    conn.execute("COMMIT")
    return version


def rollback(conn: sqlite3.Connection) -> None:
    """Undo an open transaction, if SQLite has not already (it does on SQLITE_FULL/IOERR).

    A failing ROLLBACK must not replace the error that caused it.
    """
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            log.warning("rollback failed", exc_info=True)


def _probe_write(conn: sqlite3.Connection) -> None:
    """Fail now, not at the first message, when the store cannot be written (read-only).

    Rewriting the schema version inside a transaction that is rolled back asks SQLite for
    a write without changing a byte of the file.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    finally:
        rollback(conn)


def _to_stderr(message: str) -> None:
    sys.stderr.write(f"gemtui: {message}\n")


def move_aside(path: Path, reason: str, *, tell: Callable[[str], None] = _to_stderr) -> Path:
    """Rename a bad store (and its WAL files) out of the way; never overwrite anything.

    ``tell`` says where it went (stderr unless a caller shows it its own way, as the TUI
    does in its transcript).
    """
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    path.rename(target)
    for suffix in ("-wal", "-shm"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            extra.rename(target.with_name(target.name + suffix))
    message = (
        f"the session store {path} could not be read ({reason}); "
        f"it was moved to {target} and a new store was created."
    )
    log.error(message)
    tell(message)
    return target


def _wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. Two gemtui processes creating the store at the same moment: SQLite
    refuses the switch at once ("database is locked", its busy handler is not consulted
    for it), so it is tried again for up to about two seconds."""
    for attempt in range(20):
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == 19:
                raise
            time.sleep(0.01 * (attempt + 1))


def _prepare(conn: sqlite3.Connection, path: Path, verify: bool | None, writable: bool) -> None:
    _check(conn, path, verify)
    _wal(conn)
    migrate(conn)
    if writable:
        _probe_write(conn)


def open_database(
    path: Path | None = None,
    *,
    verify: bool | None = None,
    writable: bool = True,
    tell: Callable[[str], None] = _to_stderr,
) -> sqlite3.Connection:
    """Open (creating or migrating) the store; a corrupt file is moved aside first.

    ``verify`` forces (True) or skips (False) the page-level check; by default only small
    files get it. ``writable`` also proves that a write would succeed (a read-only store
    fails here, not at the first message). Raises ``StoreUnavailableError`` when the
    store cannot be used for any reason other than damage, ``StoreVersionError`` when a
    newer gemtui wrote it; in both cases the file is left untouched.
    """
    path = path or database_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        damaged = path.exists() and not _looks_like_sqlite(path)
    except OSError as exc:
        raise StoreUnavailableError(path, reason_for(exc, path)) from exc
    if damaged:
        try:
            move_aside(path, "not a SQLite database", tell=tell)
        except OSError as exc:
            why = reason_for(exc, path)
            raise StoreUnavailableError(
                path, f"it is not a SQLite database and could not be moved aside ({why})"
            ) from exc
    try:
        conn = connect(path)
    except sqlite3.Error as exc:
        raise StoreUnavailableError(path, reason_for(exc, path)) from exc
    try:
        _prepare(conn, path, verify, writable)
    except (sqlite3.Error, OSError, StoreCorruptError) as exc:
        conn.close()
        if not isinstance(exc, StoreCorruptError) and not is_corruption(exc):
            raise StoreUnavailableError(path, reason_for(exc, path)) from exc
        try:
            move_aside(path, str(exc), tell=tell)
            conn = connect(path)
            try:
                _prepare(conn, path, False, writable)
            except BaseException:
                conn.close()
                raise
        except (OSError, sqlite3.Error) as again:
            raise StoreUnavailableError(
                path, f"it is damaged ({exc}) and could not be replaced ({reason_for(again, path)})"
            ) from again
    except BaseException:
        conn.close()
        raise
    # NORMAL in WAL mode: a commit survives a killed process (not a power cut) without
    # an fsync per message, which keeps the recorder off the engine's critical path.
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn
