"""The event bus: ids and order, slow subscribers that never block, decisions, cancel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gemtui.bus import (
    ApprovalDecision,
    ContentDelta,
    Decision,
    ErrorOccurred,
    Event,
    EventBus,
    ThoughtDelta,
    UserMessage,
    current_prompt_id,
)


def test_emit_fills_session_prompt_and_monotonic_seq() -> None:
    bus = EventBus("sess")
    seen: list[Event] = []
    bus.subscribe(seen.append)
    token = current_prompt_id.set("sess#3")
    try:
        bus.emit(UserMessage, text="hi")
        bus.emit(ContentDelta, text="a")
    finally:
        current_prompt_id.reset(token)
    assert [(e.session_id, e.prompt_id) for e in seen] == [("sess", "sess#3")] * 2
    assert [e.seq for e in seen] == [1, 2]


def test_an_event_emitted_by_a_subscriber_reaches_everyone_after_the_current_one() -> None:
    """The recorder announces a store failure while handling another event: every view,
    inline or queued, still sees the events in seq order."""
    bus = EventBus("s")
    first: list[Event] = []
    last: list[Event] = []

    def announcer(event: Event) -> None:
        first.append(event)
        if isinstance(event, UserMessage):
            bus.emit(ErrorOccurred, message="not saved", kind="warning")

    bus.subscribe(announcer)
    bus.subscribe(last.append)
    queued = bus.subscription()
    bus.emit(UserMessage, text="hi")
    for seen in (first, last, queued.drain()):
        assert [type(e) for e in seen] == [UserMessage, ErrorOccurred]
        assert [e.seq for e in seen] == [1, 2]


def test_events_are_immutable() -> None:
    ev = EventBus("s").emit(ContentDelta, text="x")
    with pytest.raises(AttributeError):
        ev.text = "y"  # type: ignore[misc]


def test_a_broken_inline_subscriber_never_breaks_the_engine() -> None:
    bus = EventBus("s")
    seen: list[Event] = []

    def broken(_: Event) -> None:
        raise RuntimeError("view bug")

    bus.subscribe(broken)
    bus.subscribe(seen.append)
    bus.emit(ContentDelta, text="x")
    assert len(seen) == 1


async def test_slow_subscriber_coalesces_deltas_and_drops_nothing_else() -> None:
    bus = EventBus("s")
    sub = bus.subscription(maxsize=4)
    for i in range(50):
        bus.emit(ContentDelta, text=str(i % 10))
    bus.emit(ErrorOccurred, message="e1")
    for _ in range(10):
        bus.emit(ThoughtDelta, text="t")
    bus.emit(ErrorOccurred, message="e2")
    got = sub.drain()
    text = "".join(e.text for e in got if isinstance(e, ContentDelta))
    assert text == "".join(str(i % 10) for i in range(50))
    assert "".join(e.text for e in got if isinstance(e, ThoughtDelta)) == "t" * 10
    assert [e.message for e in got if isinstance(e, ErrorOccurred)] == ["e1", "e2"]
    assert len(got) < 62
    assert sub.coalesced > 0
    # order between kinds is kept
    kinds = [type(e).__name__ for e in got]
    assert kinds.index("ErrorOccurred") < kinds.index("ThoughtDelta")


async def test_back_pressure_never_merges_deltas_across_prompts_or_thought_subjects() -> None:
    """A merged delta keeps the newer event's fields, so only like with like may merge."""
    bus = EventBus("s")
    sub = bus.subscription(maxsize=1)
    bus.emit(UserMessage, text="fill")
    bus.emit(ContentDelta, text="a1", prompt_id="s#1")
    bus.emit(ContentDelta, text="a2", prompt_id="s#1")
    bus.emit(ContentDelta, text="b1", prompt_id="s#2")
    bus.emit(ThoughtDelta, text="p", subject="Planning", prompt_id="s#2")
    bus.emit(ThoughtDelta, text="q", subject="Planning", prompt_id="s#2")
    bus.emit(ThoughtDelta, text="r", subject="Checking", prompt_id="s#2")
    got = sub.drain()
    deltas = [
        (type(e).__name__, e.prompt_id, e.text) for e in got if not isinstance(e, UserMessage)
    ]
    assert deltas == [
        ("ContentDelta", "s#1", "a1a2"),
        ("ContentDelta", "s#2", "b1"),
        ("ThoughtDelta", "s#2", "pq"),
        ("ThoughtDelta", "s#2", "r"),
    ]
    subjects = [e.subject for e in got if isinstance(e, ThoughtDelta)]
    assert subjects == ["Planning", "Checking"]
    assert sub.coalesced == 2


async def test_subscription_iterates_until_closed() -> None:
    bus = EventBus("s")
    sub = bus.subscription()
    received: list[Event] = []

    async def consume() -> None:
        async for ev in sub:
            received.append(ev)

    task = asyncio.create_task(consume())
    bus.emit(UserMessage, text="a")
    await asyncio.sleep(0)
    bus.emit(UserMessage, text="b")
    sub.close()
    await asyncio.wait_for(task, 5)
    assert [e.text for e in received if isinstance(e, UserMessage)] == ["a", "b"]


async def test_decisions_resolve_the_waiting_request_once() -> None:
    bus = EventBus("s")
    fut = bus.await_decision("corr-1")
    assert bus.pending_approvals == ["corr-1"]
    assert bus.decide("corr-1", Decision(ApprovalDecision.ALLOW_ONCE))
    assert (await fut).decision is ApprovalDecision.ALLOW_ONCE
    assert not bus.decide("corr-1", Decision(ApprovalDecision.REJECT))
    assert not bus.decide("unknown", Decision(ApprovalDecision.REJECT))
    assert bus.pending_approvals == []


def test_cancel_reaches_handlers() -> None:
    bus = EventBus("s")
    calls: list[int] = []
    off = bus.on_cancel(lambda: calls.append(1))
    bus.cancel()
    off()
    bus.cancel()
    assert calls == [1]


def test_one_merge_rule_for_the_bus_queue_and_the_bridge() -> None:
    """A slow subscriber's queue and the TUI bridge merge the same way: deltas of one kind,
    one prompt and one thought subject; a new subject or the answer starts a new event."""
    from gemtui.bus import merge_deltas

    stream = [
        (ThoughtDelta, {"text": "read ", "subject": "Plan"}),
        (ThoughtDelta, {"text": "the file", "subject": "Plan"}),
        (ThoughtDelta, {"text": "edit it", "subject": "Change"}),
        (ContentDelta, {"text": "Done"}),
        (ContentDelta, {"text": "."}),
        (ThoughtDelta, {"text": "check", "subject": "Change"}),
    ]
    expected = [
        ("ThoughtDelta", "Plan", "read the file"),
        ("ThoughtDelta", "Change", "edit it"),
        ("ContentDelta", None, "Done."),
        ("ThoughtDelta", "Change", "check"),
    ]

    def shape(events: list[Any]) -> list[tuple[str, str | None, str]]:
        return [(type(e).__name__, getattr(e, "subject", None), e.text) for e in events]

    bus = EventBus("s")
    sub = bus.subscription(maxsize=1)  # full at once: everything after the first merges
    emitted = [bus.emit(cls, **fields) for cls, fields in stream]
    assert shape(merge_deltas(emitted)) == expected
    assert shape(sub.drain()) == expected
