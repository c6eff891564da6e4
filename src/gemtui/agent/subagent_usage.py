"""What a prompt's subagents cost: their model calls, counted per agent.

A subagent's ``TurnFinished`` reaches its parent's bus with ``parent_id`` set (see
``bus.child``). The tally listens for one prompt: each such call is handed to the
executor (which adds it to the prompt's totals) and summed under the name of the agent
that made it, the tool whose call started it.
"""

from __future__ import annotations

from collections.abc import Callable

from gemtui.agent.budget import SIDE_CALL
from gemtui.bus import Event, EventBus, ToolCallStateChanged, TurnFinished, Usage

__all__ = ["SubagentTally"]


class SubagentTally:
    """Subagents' usage and cost in one prompt, by agent; ``close`` stops listening."""

    def __init__(
        self, bus: EventBus, prompt_id: str, on_call: Callable[[TurnFinished], None]
    ) -> None:
        self.prompt_id = prompt_id
        self.on_call = on_call
        self.usage: dict[str, Usage] = {}
        self.cost: dict[str, float] = {}
        self.turns: dict[str, int] = {}
        """Model calls by agent (the prompt's own turns count only its own)."""
        self._names: dict[str, str] = {}
        """Tool name of every call seen, by the id views know it by."""
        self.close = bus.subscribe(self._seen)

    def _seen(self, event: Event) -> None:
        if isinstance(event, ToolCallStateChanged):
            self._names.setdefault(event.call.call_id, event.call.name)
        elif isinstance(event, TurnFinished) and event.finish_reason == SIDE_CALL:
            if event.prompt_id == self.prompt_id and not event.parent_id:
                self.on_call(event)  # a tool's own model call (edit fixer): the prompt's
        elif isinstance(event, TurnFinished) and event.parent_id:
            if event.prompt_id != self.prompt_id:
                return
            self.on_call(event)
            agent = self._names.get(event.parent_id, "subagent")
            self.usage[agent] = self.usage.get(agent, Usage()) + event.usage
            self.turns[agent] = self.turns.get(agent, 0) + 1
            if event.cost is not None:
                self.cost[agent] = self.cost.get(agent, 0.0) + event.cost
