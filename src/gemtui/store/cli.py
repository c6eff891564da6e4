"""``gemtui sessions list [--json]``: the saved sessions for people and for scripts."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from typing import TextIO

from gemtui.errors import EXIT_ERROR
from gemtui.store.db import StoreUnavailableError, StoreVersionError
from gemtui.store.records import SessionInfo
from gemtui.store.store import SessionStore

__all__ = ["print_sessions"]


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def _read_sessions(limit: int, err: TextIO) -> list[SessionInfo] | None:
    """The sessions, or None after one line on ``err`` saying why they cannot be read."""
    try:
        with SessionStore(writable=False) as store:
            return store.list_sessions(limit=limit)
    except (StoreUnavailableError, StoreVersionError, sqlite3.Error, OSError) as exc:
        err.write(f"gemtui: cannot list the saved sessions: {exc}\n")
        return None


def print_sessions(
    *,
    as_json: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
    limit: int = 10_000,
) -> int:
    """Newest first; JSON is the array promised in DESIGN.md's outside contract.

    A store that cannot be read (locked, unreadable, from a newer gemtui) prints one line
    on stderr and returns 1, the generic error exit; a read-only store still lists.
    """
    out = out or sys.stdout
    sessions = _read_sessions(limit, err or sys.stderr)
    if sessions is None:
        return EXIT_ERROR
    if as_json:
        out.write(json.dumps([s.to_json() for s in sessions], ensure_ascii=False, indent=2) + "\n")
        return 0
    if not sessions:
        out.write("No saved sessions yet.\n")
        return 0
    out.write(f"{'ID':<10} {'UPDATED':<16} {'MSGS':>5} {'TOKENS':>8}  {'MODEL':<22} TITLE\n")
    for s in sessions:
        title = (s.title or "(untitled)")[:60]
        mark = " [imported]" if s.imported else ""
        out.write(
            f"{s.id[:8]:<10} {_when(s.updated):<16} {s.messages:>5} {s.tokens:>8}  "
            f"{s.model[:22]:<22} {title}{mark}\n"
        )
    return 0
