"""The tool-call state machine: which edges exist, and the single writer that walks them."""

from __future__ import annotations

import itertools

import pytest
from fake_tools import make_tool, record_events

from gemtui.bus import EventBus, ToolCallState, ToolCallStateChanged
from gemtui.scheduler import (
    TRANSITIONS,
    CallRecord,
    InvalidTransitionError,
    StateManager,
    check_transition,
)
from gemtui.tools.base import ToolKind, ToolResult
from gemtui.wire import FunctionCall

S = ToolCallState

ALLOWED = {
    (S.VALIDATING, S.AWAITING_APPROVAL),
    (S.VALIDATING, S.SCHEDULED),
    (S.VALIDATING, S.ERROR),
    (S.VALIDATING, S.CANCELLED),
    (S.AWAITING_APPROVAL, S.SCHEDULED),
    (S.AWAITING_APPROVAL, S.ERROR),
    (S.AWAITING_APPROVAL, S.CANCELLED),
    (S.SCHEDULED, S.EXECUTING),
    (S.SCHEDULED, S.CANCELLED),
    (S.EXECUTING, S.SUCCESS),
    (S.EXECUTING, S.ERROR),
    (S.EXECUTING, S.CANCELLED),
}


@pytest.mark.parametrize(("old", "new"), list(itertools.product(S, S)))
def test_transition_table_is_exactly_the_designed_one(old: S, new: S) -> None:
    if (old, new) in ALLOWED:
        check_transition(old, new)
    else:
        with pytest.raises(InvalidTransitionError):
            check_transition(old, new)


def test_terminal_states_go_nowhere() -> None:
    for state in S:
        assert (TRANSITIONS[state] == frozenset()) == state.terminal


def _record(call_id: str = "c1") -> CallRecord:
    return CallRecord(request=FunctionCall(id=call_id, name="read", args={"x": 1}))


def test_manager_publishes_a_snapshot_for_every_change() -> None:
    bus = EventBus("s")
    events = record_events(bus)
    manager = StateManager(bus)
    manager.add(_record())
    manager.update("c1", tool=make_tool("read", ToolKind.READ))
    manager.transition("c1", S.SCHEDULED)
    manager.transition("c1", S.EXECUTING)
    manager.transition("c1", S.SUCCESS, result=ToolResult(llm_content="done"))
    states = [e.call.state for e in events if isinstance(e, ToolCallStateChanged)]
    assert states == [S.VALIDATING, S.VALIDATING, S.SCHEDULED, S.EXECUTING, S.SUCCESS]
    last = manager.snapshots()[0]
    assert last.output == "done"
    assert last.kind == "read"
    assert last.duration_ms is not None
    assert last.duration_ms >= 0


def test_illegal_transition_raises_and_changes_nothing() -> None:
    bus = EventBus()
    events = record_events(bus)
    manager = StateManager(bus)
    manager.add(_record())
    with pytest.raises(InvalidTransitionError):
        manager.transition("c1", S.SUCCESS, error="nope")
    assert manager.get("c1").state is S.VALIDATING
    assert manager.get("c1").error is None
    assert len(events) == 1


def test_unknown_fields_and_duplicate_ids_are_refused() -> None:
    manager = StateManager(EventBus())
    manager.add(_record())
    with pytest.raises(TypeError):
        manager.transition("c1", S.SCHEDULED, state=S.SUCCESS)
    with pytest.raises(ValueError, match="duplicate tool call id"):
        manager.add(_record())


def test_snapshot_is_a_frozen_copy() -> None:
    record = _record()
    snap = record.to_snapshot()
    record.request.args["x"] = 2
    assert snap.args == {"x": 1}
    with pytest.raises(AttributeError):
        snap.state = S.ERROR  # type: ignore[misc]
