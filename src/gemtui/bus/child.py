"""A subagent's bus: its events reach the parent's views marked as the subagent's.

A subagent runs its own executor and scheduler, each publishing on a ``ChildBus``. What
views need of it (its tool calls and their output, its model calls' usage, its text and
thoughts, its errors, and each entry of its history for the store) is re-published on
the parent bus with ``parent_id`` set to the parent's tool call, under the parent's
prompt id; the rest (its own prompt, history and finish) stays private, so no view
mistakes it for the conversation's. Its call ids are prefixed with the parent call's id,
so they can never collide with the parent's, and an approval request names the agent.
Approvals are answered on the parent bus, where the person (or headless mode) answers
every other one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from msgspec.structs import replace

from gemtui.bus.bus import EventBus, current_prompt_id
from gemtui.bus.events import (
    ContentDelta,
    Decision,
    ErrorOccurred,
    Event,
    SubagentHistoryAppended,
    ThoughtDelta,
    ToolCallStateChanged,
    ToolOutput,
    TurnFinished,
)

if TYPE_CHECKING:
    from gemtui.wire import Content

__all__ = ["FORWARDED", "ChildBus"]

FORWARDED: tuple[type[Event], ...] = (
    ToolCallStateChanged,
    ToolOutput,
    TurnFinished,
    ContentDelta,
    ThoughtDelta,
    ErrorOccurred,
    SubagentHistoryAppended,
)
"""The subagent's events its parent's views (and the store) see."""


class ChildBus(EventBus):
    """The bus of one subagent run, forwarding to ``parent`` as described above."""

    def __init__(self, parent: EventBus, parent_id: str, agent: str) -> None:
        super().__init__(parent.session_id)
        self.parent = parent
        self.parent_id = parent_id
        self.agent = agent
        self._prompt_id = current_prompt_id.get()
        """The parent's prompt: the subagent's events belong to it."""

    def child_call_id(self, call_id: str) -> str:
        """How the parent's views name one of the subagent's calls."""
        return f"{self.parent_id}/{call_id}"

    def history_changed(self, index: int, content: Content | None, reason: str | None) -> None:
        """The subagent's chat listener: each entry it appends is published for the
        store; a replacement (its own compression) publishes nothing, so what was
        stored stays as it happened."""
        if content is not None:
            self.emit(SubagentHistoryAppended, agent=self.agent, index=index, content=content)

    def _deliver(self, event: Event) -> None:
        super()._deliver(event)
        if isinstance(event, FORWARDED):
            self.parent.publish(self._stamped(event))

    def _stamped(self, event: Event) -> Event:
        if isinstance(event, ToolCallStateChanged):
            call = event.call
            confirmation = call.confirmation
            if confirmation is not None:
                confirmation = replace(confirmation, agent=self.agent)
            call = replace(
                call, call_id=self.child_call_id(call.call_id), confirmation=confirmation
            )
            event = replace(event, call=call)
        elif isinstance(event, ToolOutput):
            event = replace(event, call_id=self.child_call_id(event.call_id))
        # a grandchild's event names its parent call the way the parent's views do
        parent_id = self.child_call_id(event.parent_id) if event.parent_id else self.parent_id
        return replace(event, parent_id=parent_id, prompt_id=self._prompt_id)

    def await_decision(self, correlation_id: str) -> asyncio.Future[Decision]:
        return self.parent.await_decision(correlation_id)

    def decide(self, correlation_id: str, decision: Decision) -> bool:
        return self.parent.decide(correlation_id, decision)

    @property
    def pending_approvals(self) -> list[str]:
        return self.parent.pending_approvals
