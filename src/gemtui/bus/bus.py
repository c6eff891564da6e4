"""The event bus: typed events out to subscribers, decisions back on one narrow path.

Publishing never blocks the engine. Inline subscribers are called synchronously and
must be quick (the headless printer, the recorder). Queue subscribers get their own
bounded buffer; when it is full, adjacent text and thought deltas of the same prompt
(and thought subject) are merged, and no
other event is ever dropped (the buffer grows past its bound for them instead).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from msgspec.structs import replace

from gemtui.bus.events import ContentDelta, Decision, Event, ThoughtDelta

__all__ = ["EventBus", "Subscription", "current_prompt_id", "merge_deltas", "mergeable"]

log = logging.getLogger(__name__)

E = TypeVar("E", bound=Event)

current_prompt_id: contextvars.ContextVar[str] = contextvars.ContextVar(
    "gemtui_prompt_id", default=""
)
"""``{session}#{turn}`` of the prompt being handled; travels with the task."""


def mergeable(last: Event, event: Event) -> bool:
    """Whether ``event`` can be folded into ``last`` without a view losing anything.

    Only deltas of one kind, of the same prompt and (for thoughts) of the same subject
    merge; the merged event is ``last`` with the joined text and ``event``'s seq.
    """
    if type(last) is not type(event) or last.prompt_id != event.prompt_id:
        return False
    if last.parent_id != event.parent_id:  # a subagent's text is not the parent's
        return False
    if isinstance(event, ThoughtDelta) and isinstance(last, ThoughtDelta):
        return last.subject == event.subject
    return isinstance(event, ContentDelta)


def merge_deltas(events: list[Event]) -> list[Event]:
    """Adjacent mergeable deltas as one event each (the one merge rule, ``mergeable``).

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
        if out and mergeable(out[-1], event):
            assert isinstance(event, ContentDelta | ThoughtDelta)
            out[-1] = replace(out[-1], seq=event.seq)
            texts.append(event.text)
        else:
            seal()
            out.append(event)
            texts = [event.text] if isinstance(event, ContentDelta | ThoughtDelta) else []
    seal()
    return out


class Subscription:
    """A bounded, coalescing queue of events for one slow consumer."""

    def __init__(self, bus: EventBus, maxsize: int) -> None:
        self._bus = bus
        self._maxsize = maxsize
        self._items: deque[Event] = deque()
        self._tail: list[str] = []
        """Texts merged into the last item and not joined yet: joining once, when the item
        leaves, keeps a flood linear (adding to one growing string per delta is quadratic)."""
        self._waiter: asyncio.Future[None] | None = None
        self._closed = False
        self.coalesced = 0

    def _push(self, event: Event) -> None:
        items = self._items
        if len(items) >= self._maxsize and items:
            last = items[-1]
            if mergeable(last, event):
                assert isinstance(event, ContentDelta | ThoughtDelta)
                items[-1] = replace(last, seq=event.seq)
                self._tail.append(event.text)
                self.coalesced += 1
                self._wake()
                return
        self._seal()
        items.append(event)
        self._wake()

    def _seal(self) -> None:
        """Join the texts merged into the last item into it."""
        if self._tail:
            last = self._items[-1]
            assert isinstance(last, ContentDelta | ThoughtDelta)
            self._items[-1] = replace(last, text="".join([last.text, *self._tail]))
            self._tail.clear()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def drain(self) -> list[Event]:
        """Everything buffered now, without waiting."""
        self._seal()
        out = list(self._items)
        self._items.clear()
        return out

    def close(self) -> None:
        self._closed = True
        self._bus._unsubscribe(self)
        self._wake()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[Event]:
        while True:
            while self._items:
                if len(self._items) == 1:
                    self._seal()
                yield self._items.popleft()
            if self._closed:
                return
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
            self._waiter = None


class EventBus:
    """Publish/subscribe of engine events for one session, plus approval decisions."""

    def __init__(self, session_id: str = "") -> None:
        self.session_id = session_id
        self._seq = itertools.count(1)
        self._inline: list[Callable[[Event], None]] = []
        self._queues: list[Subscription] = []
        self._pending: dict[str, asyncio.Future[Decision]] = {}
        self._cancel_handlers: list[Callable[[], None]] = []
        self._outbox: deque[Event] = deque()
        self._delivering = False

    # -- events out -------------------------------------------------------------
    def emit(self, cls: type[E], **fields: Any) -> E:
        """Build an event with this session's ids and the next seq, and publish it."""
        event = cls(
            session_id=self.session_id,
            prompt_id=fields.pop("prompt_id", None) or current_prompt_id.get(),
            seq=next(self._seq),
            **fields,
        )
        self._deliver(event)
        return event

    def publish(self, event: Event) -> None:
        """Publish an event built elsewhere; it gets this bus's next seq."""
        self._deliver(replace(event, seq=next(self._seq)))

    def _deliver(self, event: Event) -> None:
        """Every subscriber sees events in ``seq`` order.

        An event emitted by a subscriber while another is being delivered (the recorder
        announcing that saving stopped) waits until that one has reached everybody.
        """
        self._outbox.append(event)
        if self._delivering:
            return
        self._delivering = True
        try:
            while self._outbox:
                current = self._outbox.popleft()
                for fn in list(self._inline):
                    try:
                        fn(current)
                    except Exception:  # a broken view must never break the engine
                        log.exception("event subscriber failed")
                for sub in self._queues:
                    sub._push(current)
        finally:
            self._delivering = False

    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]:
        """Call ``fn`` inline for every event; returns an unsubscribe function."""
        self._inline.append(fn)
        return lambda: self._inline.remove(fn) if fn in self._inline else None

    def subscription(self, maxsize: int = 256) -> Subscription:
        sub = Subscription(self, maxsize)
        self._queues.append(sub)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        if sub in self._queues:
            self._queues.remove(sub)

    # -- decisions back ---------------------------------------------------------
    def await_decision(self, correlation_id: str) -> asyncio.Future[Decision]:
        """The scheduler waits on this future; ``decide`` resolves it."""
        fut: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._pending[correlation_id] = fut
        fut.add_done_callback(lambda _f: self._pending.pop(correlation_id, None))
        return fut

    def decide(self, correlation_id: str, decision: Decision) -> bool:
        """Answer an approval request; False when it is no longer pending."""
        fut = self._pending.pop(correlation_id, None)
        if fut is None or fut.done():
            return False
        fut.set_result(decision)
        return True

    @property
    def pending_approvals(self) -> list[str]:
        return [k for k, f in self._pending.items() if not f.done()]

    def on_cancel(self, fn: Callable[[], None]) -> Callable[[], None]:
        self._cancel_handlers.append(fn)
        return lambda: self._cancel_handlers.remove(fn) if fn in self._cancel_handlers else None

    def cancel(self) -> None:
        """Ask the engine to cancel the running turn (Esc, Ctrl-C)."""
        for fn in list(self._cancel_handlers):
            fn()
