"""The single writer of tool-call state.

Every change to a call goes through ``transition``, which checks the edge, applies the
changes and publishes a full snapshot. Views render those snapshots; nobody else
mutates a ``CallRecord``, so what a view shows is always a state the machine allows.
"""

from __future__ import annotations

import time
from typing import Any

from gemtui.bus.bus import EventBus
from gemtui.bus.events import ToolCallSnapshot, ToolCallState, ToolCallStateChanged
from gemtui.scheduler.states import CallRecord, check_transition

__all__ = ["StateManager"]

_WRITABLE = frozenset(
    {
        "tool",
        "invocation",
        "correlation_id",
        "confirmation",
        "decision",
        "result",
        "error",
        "refusal",
        "approval_reason",
    }
)


class StateManager:
    """Holds the records of one batch and publishes each change on the bus."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._calls: dict[str, CallRecord] = {}

    def add(self, record: CallRecord) -> ToolCallSnapshot:
        """Register a new call (validating) and announce it."""
        if record.call_id in self._calls:
            raise ValueError(f"duplicate tool call id {record.call_id!r}")
        if record.state is not ToolCallState.VALIDATING:
            raise ValueError("a call starts in the validating state")
        self._calls[record.call_id] = record
        return self._publish(record)

    def get(self, call_id: str) -> CallRecord:
        return self._calls[call_id]

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._calls

    def records(self) -> list[CallRecord]:
        return list(self._calls.values())

    def snapshots(self) -> list[ToolCallSnapshot]:
        return [r.to_snapshot() for r in self._calls.values()]

    def update(self, call_id: str, **changes: Any) -> ToolCallSnapshot:
        """Change fields without changing state (e.g. the tool once it is found)."""
        record = self._calls[call_id]
        self._apply(record, changes)
        return self._publish(record)

    def transition(
        self, call_id: str, new_state: ToolCallState, **changes: Any
    ) -> ToolCallSnapshot:
        """Move a call to ``new_state`` (raising on an illegal edge) and publish it."""
        record = self._calls[call_id]
        check_transition(record.state, new_state)
        self._apply(record, changes)
        record.state = new_state
        now = time.monotonic()
        if new_state is ToolCallState.EXECUTING:
            record.started_at = now
        if new_state.terminal:
            record.ended_at = now
        return self._publish(record)

    @staticmethod
    def _apply(record: CallRecord, changes: dict[str, Any]) -> None:
        unknown = set(changes) - _WRITABLE
        if unknown:
            raise TypeError(f"cannot change {', '.join(sorted(unknown))} of a tool call")
        for key, value in changes.items():
            setattr(record, key, value)

    def _publish(self, record: CallRecord) -> ToolCallSnapshot:
        snapshot = record.to_snapshot()
        self._bus.emit(ToolCallStateChanged, call=snapshot)
        return snapshot
