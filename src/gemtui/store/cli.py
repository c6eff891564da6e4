"""``gemtui sessions list [--json]``: the saved sessions for people and for scripts."""

from __future__ import annotations

import json
import sys
import time
from typing import TextIO

from gemtui.redact import redact, redact_data
from gemtui.store.facade import SessionStore
from gemtui.store.records import FORK_MARK

__all__ = ["print_sessions"]


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def print_sessions(
    *,
    as_json: bool = False,
    out: TextIO | None = None,
    limit: int = 10_000,
) -> int:
    """Newest first; JSON is the array promised in DESIGN.md's outside contract.

    The store is opened for reading only, so a read-only store still lists; one that
    cannot be read raises (``gemtui sessions`` turns that into one line and exit 1).
    """
    out = out or sys.stdout
    with SessionStore(writable=False) as store:
        sessions = store.list_sessions(limit=limit)
    if as_json:
        rows = redact_data([s.to_json() for s in sessions])
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not sessions:
        out.write("No saved sessions yet.\n")
        return 0
    out.write(f"{'ID':<10} {'UPDATED':<16} {'MSGS':>5} {'TOKENS':>8}  {'MODEL':<22} TITLE\n")
    for s in sessions:
        title = (FORK_MARK if s.parent_id else "") + redact(s.title or "(untitled)")[:60]
        mark = " [imported]" if s.imported else ""
        out.write(
            f"{s.id[:8]:<10} {_when(s.updated):<16} {s.messages:>5} {s.tokens:>8}  "
            f"{s.model[:22]:<22} {title}{mark}\n"
        )
    return 0
