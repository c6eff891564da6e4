"""The one bridge from the engine's event bus to Textual messages.

Nothing else in the TUI subscribes to the bus. The bridge runs as a worker: it waits for
events on a bounded, coalescing subscription, merges adjacent text and thought deltas
that arrived together (one message per frame's worth of text, not per token), and posts
each as a ``BusEvent`` message to its target (the main screen), which routes it to the
panes and calls ``done()``; the next batch is sent only then, so back-pressure stays in the bus.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from gemtui.bus import EventBus, Subscription
    from gemtui.bus.events import Event

__all__ = ["BusEvent", "pump_events"]


class BusEvent(Message, bubble=False):
    """An engine event, re-posted on the Textual side (to the main screen, directly)."""

    def __init__(self, event: Event, handled: asyncio.Event | None = None) -> None:
        super().__init__()
        self.event = event
        """The frozen event from ``gemtui.bus.events``."""
        self.handled = handled
        """Set by the target once it has dealt with this message (the last of a batch)."""

    def done(self) -> None:
        if self.handled is not None:
            self.handled.set()


async def pump_events(
    bus: EventBus,
    target: MessagePump,
    maxsize: int = 512,
    *,
    subscription: Subscription | None = None,
) -> None:
    """Forward every bus event to ``target`` until cancelled (run it in a worker).

    ``subscription``: one the caller opened before the worker ran (so the events of a
    session started at once are not missed); closed here like one opened here."""
    from gemtui.bus.bus import merge_deltas  # with the engine, after the first frame

    if subscription is None:
        subscription = bus.subscription(maxsize)
    try:
        async for first in subscription:
            batch = merge_deltas([first, *subscription.drain()])
            handled = asyncio.Event()
            for event in batch[:-1]:
                target.post_message(BusEvent(event))
            target.post_message(BusEvent(batch[-1], handled))
            # One batch in the target's queue at a time: while it works, deltas merge in the
            # bounded subscription instead of piling up in Textual's unbounded queue, where
            # they would keep a key (Esc) waiting behind seconds of text.
            await handled.wait()
    finally:
        subscription.close()
