"""Why the store failed, and whether the file is to blame: the line between damage and trouble.

Only real damage (a failed integrity check, SQLITE_CORRUPT, SQLITE_NOTADB) justifies
moving a database aside. Everything else — a full disk, a read-only file or folder, an
I/O error, a file that cannot be opened, a lock held elsewhere — says nothing about the
file's contents, so the file is left exactly as it is and the session goes unsaved, with
a reason the person can act on. Decisions use SQLite's result codes, never message text.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

__all__ = [
    "StoreUnavailableError",
    "is_corruption",
    "is_transient",
    "reason_for",
]

SQLITE_PERM = 3
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_AUTH = 23
SQLITE_NOTADB = 26
SQLITE_READONLY_DIRECTORY = SQLITE_READONLY | (6 << 8)

NEARLY_FULL = 64 * 1024
"""Free bytes under which an I/O error is reported as a full disk (SQLite often reports a
full disk as SQLITE_IOERR_SHMSIZE or _WRITE, as the OS gave it ENOSPC)."""

_FULL_DISK = "the disk is full; free some space to save sessions again"
_CORRUPTION = frozenset({SQLITE_CORRUPT, SQLITE_NOTADB})
_TRANSIENT = frozenset({SQLITE_BUSY, SQLITE_LOCKED})


class StoreUnavailableError(Exception):
    """The store cannot be used right now; its file was left untouched.

    ``reason`` is one sentence fragment a person can act on ("the disk is full").
    """

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"the session store {path} cannot be used: {reason}")
        self.path = path
        self.reason = reason


def _code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code if isinstance(code, int) else None


def is_corruption(exc: BaseException) -> bool:
    """SQLITE_CORRUPT or SQLITE_NOTADB (extended codes included): the file itself is bad."""
    code = _code(exc)
    return code is not None and (code & 0xFF) in _CORRUPTION


def is_transient(exc: BaseException) -> bool:
    """Another process holds the lock past the busy timeout: the next write may succeed."""
    code = _code(exc)
    return code is not None and (code & 0xFF) in _TRANSIENT


def _disk_full(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < NEARLY_FULL
    except OSError:
        return False


def reason_for(exc: BaseException, path: Path) -> str:
    """What went wrong and what to do, for ``exc`` raised while using the store at ``path``."""
    folder = path.parent
    if isinstance(exc, sqlite3.Error):
        code = _code(exc)
        name = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
        primary = None if code is None else code & 0xFF
        if code == SQLITE_READONLY_DIRECTORY:
            text = f"its folder {folder} is read-only; make it writable to save sessions"
        elif primary == SQLITE_FULL or (primary == SQLITE_IOERR and _disk_full(folder)):
            text = _FULL_DISK
        elif primary == SQLITE_READONLY:
            text = f"it is read-only; make {path} and {folder} writable to save sessions"
        elif primary == SQLITE_IOERR:
            text = "a disk I/O error occurred"
        elif primary == SQLITE_CANTOPEN:
            text = f"it cannot be opened; check that {folder} exists and is writable"
        elif primary in (SQLITE_PERM, SQLITE_AUTH):
            text = f"permission denied; check the permissions of {path}"
        elif primary in _TRANSIENT:
            text = "another gemtui holds its lock; try again when it is done"
        else:
            text = str(exc)
        return f"{text} [{name}]"
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            return _FULL_DISK
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"{exc.strerror or exc}; check the permissions of {folder}"
        if exc.errno in (errno.EEXIST, errno.ENOTDIR):
            return f"a file is in the way of its folder {exc.filename or folder}"
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}"
    return str(exc)
