"""Whether the session store is still opening: the TUI opens it after the engine is handed
over (and after the Markdown warm-up), so a command that needs it says so meanwhile, and
``/new`` waits instead of opening a second store. A leaf: the controller and the slash
commands both read it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gemtui.agent.assembly import Assembled
    from gemtui.agent.store_attachment import StoreAttachment

__all__ = ["STILL_OPENING", "TURN_WAIT", "hurry_store", "open_store_when_quiet", "store_opening"]

STILL_OPENING = "The session store is still opening; try again in a moment."

TURN_WAIT = 2.0
"""Seconds the store waits for a first turn already under way before it opens anyway:
what it would write waits in memory meanwhile (``LaterRecorder``)."""


def open_store_when_quiet(
    attachment: StoreAttachment, busy: Callable[[], bool], turn_over: threading.Event
) -> None:
    """Open the store in this (the engine's) thread, but not while a first prompt is on its
    way: its request and first lines would share the interpreter with SQLite's open and
    schema check (the peer harness saw the first line wait 30-70 ms for it). Such a prompt
    is waited for until its turn ends, at most ``TURN_WAIT``; an exit meanwhile opens the
    store itself and writes what waited."""
    if busy():
        turn_over.wait(TURN_WAIT)
    attachment.open()


class _Starting(Protocol):
    """What ``store_opening`` and ``hurry_store`` read of a session controller."""

    @property
    def session_factory(self) -> object | None: ...
    @property
    def assembled(self) -> Assembled | None: ...
    @property
    def first_turn_over(self) -> threading.Event: ...


def store_opening(controller: _Starting) -> bool:
    """The store is not open yet but will be: the engine is starting, or it opens the
    store after the hand-over (after the Markdown warm-up)."""
    built = controller.assembled
    return controller.session_factory is not None or (
        built is not None and built.attachment.opening
    )


def hurry_store(controller: _Starting) -> bool:
    """Something needs the store now: one waiting for the first turn
    (``open_store_when_quiet``) opens at once. True while it is still opening (the caller
    says so, or waits for it)."""
    opening = store_opening(controller)
    if opening:
        controller.first_turn_over.set()
    return opening
