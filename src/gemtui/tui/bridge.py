"""The one bridge from the engine's event bus to Textual messages.

Nothing else in the TUI subscribes to the bus. The bridge runs as a worker: it waits for
events on a bounded, coalescing subscription, merges adjacent text and thought deltas
that arrived together (one message per frame's worth of text, not per token), and posts
each as a ``BusEvent`` message to its target (the app), which routes it to the panes and
calls ``done()``; the next batch is sent only then, so back-pressure stays in the bus.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.message import Message

from gemtui.bus.events import ContentDelta, Event, ThoughtDelta

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from gemtui.bus import EventBus

__all__ = ["BusEvent", "merge_deltas", "pump_events"]


class BusEvent(Message):
    """An engine event, re-posted on the Textual side."""

    def __init__(self, event: Event, handled: asyncio.Event | None = None) -> None:
        super().__init__()
        self.event = event
        """The frozen event from ``gemtui.bus.events``."""
        self.handled = handled
        """Set by the target once it has dealt with this message (the last of a batch)."""

    def done(self) -> None:
        if self.handled is not None:
            self.handled.set()


def merge_deltas(events: list[Event]) -> list[Event]:
    """Adjacent deltas of one kind (and one thought subject) merged into one event.

    Each run's texts are joined once, so merging stays linear however much text came.
    """
    out: list[Event] = []
    texts: list[str] = []  # the texts of the run ending at out[-1]

    def seal() -> None:
        if len(texts) > 1:
            last = out[-1]
            assert isinstance(last, ContentDelta | ThoughtDelta)
            out[-1] = replace(last, text="".join(texts))

    for event in events:
        last = out[-1] if out else None
        if (
            isinstance(event, ContentDelta)
            and isinstance(last, ContentDelta)
            and last.prompt_id == event.prompt_id
        ) or (
            isinstance(event, ThoughtDelta)
            and isinstance(last, ThoughtDelta)
            and event.subject is None
            and last.prompt_id == event.prompt_id
        ):
            assert isinstance(last, ContentDelta | ThoughtDelta)
            out[-1] = replace(last, seq=event.seq)
            texts.append(event.text)
        else:
            seal()
            out.append(event)
            texts = [event.text] if isinstance(event, ContentDelta | ThoughtDelta) else []
    seal()
    return out


async def pump_events(bus: EventBus, target: MessagePump, maxsize: int = 512) -> None:
    """Forward every bus event to ``target`` until cancelled (run it in a worker)."""
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
