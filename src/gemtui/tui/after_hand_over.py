"""The rest of start-up, in the engine's thread once the session is handed over: Rich's
Markdown, the session store, the lexers. Each shares the interpreter with whatever the
person does meanwhile, so each waits for a prompt on its way (issue 34).

In the peer harness the prompt is typed 0.3 s after the screen is ready and sent 0.3 s
later; on a slow machine the hand-over comes between the two. What the first answer's
first line needs (Markdown) is loaded at once unless a prompt is already being sent; what
nobody waits for (the store, lexers: 20-70 ms and 110 ms of slices that cannot stop
halfway) waits while a prompt is being written too, until the first turn is over.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from gemtui.tui.store_opening import open_store_when_quiet

if TYPE_CHECKING:
    from gemtui.agent.assembly import Assembled

__all__ = ["finish_start_up"]


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
    no prompt waits for the interpreter."""
    from gemtui.tui.widgets.markdown_look import warm_lexers, warm_markdown

    def sending() -> bool:
        return bool(controller.queued) or controller.turn_running

    def writing_or_sending() -> bool:
        return controller.drafting or sending()

    resumed = bool(built.session.history)  # its code blocks make their own lexers
    if not controller.queued:  # nobody waits yet: the first answer needs it, not the store
        warm_markdown(sending)
    if built.attachment.opening:
        open_store_when_quiet(built.attachment, writing_or_sending, controller.first_turn_over)
        store_opened()
    if resumed:
        return
    if writing_or_sending():
        controller.first_turn_over.wait()  # set by every turn's end, and by the exit
    if not controller.closing:
        warm_lexers(writing_or_sending)
