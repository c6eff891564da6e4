"""One ACP session: a gemtui ``Session`` whose bus events flow to the client in order.

A pump task reads the session's bus subscription and sends each update before the next,
so the client sees events in ``seq`` order; a prompt's answer is returned only once the
pump has sent everything up to the prompt's ``AgentFinished``. Approval requests are
asked in their own tasks so a waiting question never holds up the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from acp import tool_terminal_ref, update_agent_message_text, update_tool_call
from acp.schema import ToolCallUpdate

from gemtui.acp.permissions import Approvals
from gemtui.acp.updates import Update, UpdateMapper, call_content, locations, tool_kind
from gemtui.bus import (
    AgentFinished,
    Event,
    TerminateReason,
    ToolCallSnapshot,
    ToolCallState,
    ToolCallStateChanged,
    TurnFinished,
)

if TYPE_CHECKING:
    from acp.interfaces import Client

    from gemtui.agent.assembly import Assembled
    from gemtui.bus.bus import Subscription
    from gemtui.wire import Part

__all__ = ["Conversation", "StopReason"]

log = logging.getLogger(__name__)

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]

_REFUSALS = frozenset({"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION"})


class Conversation:
    """The client's view of one gemtui session."""

    def __init__(self, client: Client, built: Assembled) -> None:
        self.client = client
        self.built = built
        self.session = built.session
        self.id = self.session.id
        self.mapper = UpdateMapper(self.session.workspace.root, self.session.context_window)
        self.approvals = Approvals(client, self.id)
        self._sub: Subscription = self.session.bus.subscription(maxsize=512)
        self._sent_seq = 0
        self._progress = asyncio.Condition()
        self._asking: set[asyncio.Task[None]] = set()
        self._asked: set[str] = set()
        self._finish_reason: str | None = None
        self._pump = asyncio.create_task(self._run_pump(), name=f"acp-pump-{self.id}")
        self.busy = False
        self.commands_sent = False
        self.on_event: Callable[[Conversation, Event], Awaitable[None]] | None = None
        """Called after each event was forwarded (the agent re-offers commands)."""

    async def send(self, update: Update | object) -> None:
        """One ``session/update`` to the client (errors are logged: the turn goes on)."""
        try:
            await self.client.session_update(session_id=self.id, update=update)  # type: ignore[arg-type]
        except Exception:
            log.exception("session/update failed")

    async def say(self, text: str) -> None:
        await self.send(update_agent_message_text(text))

    async def _run_pump(self) -> None:
        async for event in self._sub:
            try:
                await self._forward(event)
                if self.on_event is not None:
                    await self.on_event(self, event)
            except Exception:  # a mapping bug must not stop the stream
                log.exception("cannot forward %s", type(event).__name__)
            async with self._progress:
                self._sent_seq = max(self._sent_seq, event.seq)
                self._progress.notify_all()

    async def _forward(self, event: Event) -> None:
        if isinstance(event, TurnFinished):
            self._finish_reason = event.finish_reason
        if isinstance(event, ToolCallStateChanged):
            call = event.call
            await self.send(self.mapper.tool_call(call, event.parent_id))
            waiting = call.state is ToolCallState.AWAITING_APPROVAL
            if waiting and call.correlation_id and call.correlation_id not in self._asked:
                self._asked.add(call.correlation_id)  # one question per request
                task = asyncio.create_task(self._ask(call))
                self._asking.add(task)
                task.add_done_callback(self._asking.discard)
            return
        for update in self.mapper.map(event):
            await self.send(update)

    async def show_terminal(self, call_id: str, terminal_id: str) -> None:
        """The shell call now runs in the editor's terminal: show it in the call."""
        self.mapper.terminals[call_id] = terminal_id
        await self.send(update_tool_call(call_id, content=[tool_terminal_ref(terminal_id)]))

    async def _ask(self, call: ToolCallSnapshot) -> None:
        update = ToolCallUpdate(
            tool_call_id=call.call_id,
            title=call.description or call.name,
            kind=tool_kind(call.kind),
            status="pending",
            content=call_content(call) or None,
            locations=locations(call.args, self.session.workspace.root),
            raw_input=call.args,
        )
        decision = await self.approvals.ask(call, update)
        assert call.correlation_id is not None
        self.session.bus.decide(call.correlation_id, decision)

    async def flush(self, seq: int) -> None:
        """Wait until every event up to ``seq`` reached the client."""
        async with self._progress:
            await self._progress.wait_for(lambda: self._sent_seq >= seq or self._pump.done())

    async def prompt(self, text: str, media: list[Part]) -> StopReason:
        """Run one prompt (the agent marks the conversation busy around it)."""
        self._finish_reason = None
        await self.session.wait_mcp()  # the model sees the servers' tools from the start
        done = await self.session.send(text, media=media or None)
        await self.flush(done.seq)
        return self.stop_reason(done)

    def stop_reason(self, done: AgentFinished) -> StopReason:
        if done.reason is TerminateReason.ABORTED:
            return "cancelled"
        if done.reason is TerminateReason.MAX_TURNS:
            return "max_turn_requests"
        if self._finish_reason in _REFUSALS:
            return "refusal"
        if self._finish_reason == "MAX_TOKENS":
            return "max_tokens"
        return "end_turn"

    def cancel(self) -> None:
        self.session.cancel()
        for task in list(self._asking):
            task.cancel()

    async def close(self) -> None:
        self.cancel()
        self._sub.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._pump
        await self.session.aclose()
        self.built.close()
