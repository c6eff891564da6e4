"""Whether the session store is still opening: the TUI opens it after the engine is handed
over (and after the Markdown warm-up), so a command that needs it says so meanwhile, and
``/new`` waits instead of opening a second store. A leaf: the controller and the slash
commands both read it."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gemtui.agent.assembly import Assembled

__all__ = ["STILL_OPENING", "hurry_store", "store_opening"]

STILL_OPENING = "The session store is still opening; try again in a moment."


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
    (``after_hand_over``) opens at once. True while it is still opening (the caller
    says so, or waits for it)."""
    opening = store_opening(controller)
    if opening:
        controller.first_turn_over.set()
    return opening
