"""The fleet's one approval queue: every agent's pending confirmations, labelled.

An item is keyed by the agent *and* the correlation id: a correlation id is unique only
within the session that made it, so two agents asking for the same call at the same
moment are two items, and an answer is looked up under the agent it names only.
"""

from __future__ import annotations

from gemtui.agent.fleet_types import AgentInfo, PendingApproval
from gemtui.bus import ToolCallSnapshot, ToolCallState

__all__ = ["ApprovalQueue"]


class ApprovalQueue:
    """Pending confirmations of every agent, oldest first (the fleet is its one writer)."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str], PendingApproval] = {}

    def items(self) -> tuple[PendingApproval, ...]:
        return tuple(self._items.values())

    def get(self, agent_id: str, correlation_id: str) -> PendingApproval | None:
        return self._items.get((agent_id, correlation_id))

    def follow(self, agent: AgentInfo, call: ToolCallSnapshot) -> bool:
        """Take in a call's new state from ``agent``'s bus; True when the queue changed.

        A call awaiting approval joins (labelled with the subagent that asked, if one
        did); any other state of a queued call takes it out.
        """
        asking = call.state is ToolCallState.AWAITING_APPROVAL and call.correlation_id
        known = [
            key
            for key, item in self._items.items()
            if key[0] == agent.id and item.call.call_id == call.call_id
        ]
        if not asking and not known:
            return False
        for key in known:
            del self._items[key]
        if asking:
            assert call.correlation_id is not None
            asker = call.confirmation.agent if call.confirmation is not None else None
            item = PendingApproval(
                agent_id=agent.id,
                agent_name=asker or agent.name,
                task=agent.task,
                workspace=agent.workspace,
                correlation_id=call.correlation_id,
                call=call,
            )
            self._items[item.key] = item
        return True

    def count(self, agent_id: str, call_prefix: str = "") -> int:
        """How many of ``agent_id``'s requests wait (only calls under ``call_prefix``)."""
        return sum(
            1
            for key, item in self._items.items()
            if key[0] == agent_id and item.call.call_id.startswith(call_prefix)
        )

    def drop(self, agent_id: str) -> bool:
        """Forget an agent's requests (it was removed); True when there were some."""
        keys = [key for key in self._items if key[0] == agent_id]
        for key in keys:
            del self._items[key]
        return bool(keys)
