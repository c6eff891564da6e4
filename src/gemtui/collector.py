"""The cyclic garbage collector, paused while gemtui starts.

Start-up allocates hundreds of thousands of long-lived objects (modules, classes, the
widget tree, the engine) and almost no garbage: the collector runs ~150 times over them
before the first frame, 30-60 ms of a cold start for nothing (issue 26). It is paused
from the first line of the command until the engine is built, then everything alive is
frozen (moved out of the collector's sight: it will live as long as the process) and
collection resumes as usual for what the session makes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["pause_collector", "resume_collector", "start_up"]

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
