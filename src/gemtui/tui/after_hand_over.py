"""The rest of start-up, in the engine's thread once the session is handed over: Rich's
Markdown, the session store, the lexers. Each shares the interpreter with whatever the
person does meanwhile, so each gives way to a prompt on its way (issue 34).

In the peer harness the prompt is typed 0.3 s after the screen is ready and sent 0.3 s
later; on a slow machine the hand-over comes between the two. What the first answer's
first line needs (Markdown) is loaded at once unless a prompt is already being sent. What
nobody waits for (the store's open and schema check, 20-70 ms; the lexers, 110 ms of
slices that cannot stop halfway) first waits while a prompt is being written or sent:
until the first turn is over, at most ``TURN_WAIT`` each. After that the store opens
anyway (what it would write waits in memory meanwhile: ``LaterRecorder``), and the lexers
are left to the answers that need them. The waits hold no interpreter and never the
short switch interval (``ui_first``): only the work does.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from gemtui.tui.ui_first import ui_first

if TYPE_CHECKING:
    from gemtui.agent.assembly import Assembled

__all__ = ["TURN_WAIT", "finish_start_up"]

TURN_WAIT = 2.0
"""Seconds the store, then the lexers, wait for a prompt being written or sent (until the
first turn is over) before they go on: bounded, so the thread ends even if nobody sends."""


class _Prompts(Protocol):
    """What the rest of start-up reads of a session controller (written on the UI thread)."""

    @property
    def queued(self) -> deque[str]: ...
    @property
    def turn_running(self) -> bool: ...
    @property
    def drafting(self) -> bool: ...
    @property
    def first_turn_over(self) -> threading.Event: ...
    @property
    def closing(self) -> bool: ...


def finish_start_up(
    built: Assembled, controller: _Prompts, store_opened: Callable[[], None]
) -> None:
    """Warm Markdown, open the store (then ``store_opened``), warm the lexers, each when
    no prompt waits for the interpreter. An exit meanwhile opens the store itself and
    writes what waited; the first turn's end, and the exit, end the waits
    (``first_turn_over``)."""
    from gemtui.tui.widgets.markdown_look import warm_lexers, warm_markdown

    def sending() -> bool:
        return bool(controller.queued) or controller.turn_running

    def writing_or_sending() -> bool:
        return controller.drafting or sending()

    def quiet() -> None:
        if writing_or_sending():
            controller.first_turn_over.wait(TURN_WAIT)

    resumed = bool(built.session.history)  # its code blocks make their own lexers
    if not controller.queued:  # nobody waits yet: the first answer needs it, not the store
        with ui_first():
            warm_markdown(sending)
    if built.attachment.opening:
        quiet()
        with ui_first():
            built.attachment.open()
        store_opened()
    if resumed:
        return
    quiet()
    if not controller.closing:
        with ui_first():
            warm_lexers(writing_or_sending)
