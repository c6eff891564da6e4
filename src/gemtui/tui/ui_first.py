"""Background work that hands the interpreter back to the UI thread quickly.

Only one thread runs Python at a time. A thread that wants to run asks the running one
to let go and waits up to the switch interval for it (CPython's default: 5 ms). The
engine's start-up thread imports and builds for most of a second after the first frame;
while it did, each step of a prompt on its way out (the terminal's reader thread with the
key, the UI loop waking for it, every await between Enter and the request) waited up to
5 ms: a prompt sent 0.6 s after the screen was ready left ~35 ms later, not ~20 (issue
34). While such work runs, the interval is 0.5 ms: the background thread lets go ten
times as often, and only when somebody waits.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["UI_SWITCH_INTERVAL", "ui_first"]

UI_SWITCH_INTERVAL = 0.0005
"""Seconds a thread that wants the interpreter waits at most while ``ui_first`` holds."""

_lock = threading.Lock()
_holders = 0
_before = 0.0


@contextmanager
def ui_first() -> Iterator[None]:
    """Run the body (a background thread's work) with the short switch interval.

    The interval is process-wide: nested and concurrent uses share one setting (several
    sessions may start at once), and the last to end puts back the one found first.
    """
    global _holders, _before
    with _lock:
        if _holders == 0:
            _before = sys.getswitchinterval()
            sys.setswitchinterval(min(_before, UI_SWITCH_INTERVAL))
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                sys.setswitchinterval(_before)
