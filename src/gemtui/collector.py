"""The cyclic garbage collector, paused while gemtui starts.

Start-up allocates hundreds of thousands of long-lived objects (modules, classes, the
widget tree, the engine) and almost no garbage: the collector runs ~150 times over them
before the first frame, 30-60 ms of a cold start for nothing (issue 26). It is paused
from the first line of the command until the engine is built, then everything alive is
frozen (moved out of the collector's sight: it will live as long as the process) and
collection resumes for what the session makes, with a larger youngest generation.

Why larger: a streamed answer's frames make thousands of short-lived lines (Textual's
``Strip`` carries seven small caches each); with Python's default of 700 they outlived
the young collections, reached the oldest generation and set off a full collection about
twice a second while an answer streamed, each 100-250 ms on a slow machine, and a key
typed meanwhile waited for it (issue 36). With ``YOUNG_THRESHOLD`` they mostly die young:
in the fleet benchmark's typing window full collections fell from ~110 to 2 and the
collector's time from ~15 s to ~3 s.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["YOUNG_THRESHOLD", "pause_collector", "resume_collector", "start_up"]

YOUNG_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation (Python's default: 700)."""

_paused = False


def pause_collector() -> None:
    """Stop automatic collection until ``resume_collector`` (start-up only)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector() -> None:
    """Freeze what start-up built and collect automatically again (once; idempotent)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        _, middle, oldest = gc.get_threshold()
        gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)
        gc.enable()


@contextmanager
def start_up() -> Iterator[None]:
    """A run paused from its start: resumed once its engine is built (by the run), and on
    the way out however it ends (a run that failed early never built one)."""
    pause_collector()
    try:
        yield
    finally:
        resume_collector()
