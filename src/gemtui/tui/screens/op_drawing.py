"""The view model's operations drawn on the main screen's widgets.

The screen feeds each engine event to the view model (``tui.view.ConversationView``); the
operations that come out are drawn here, one widget call each. The view model, its ops
(msgspec) and this table are made with the first event: the first frame needs none of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from gemtui.tui.budget_flow import ask_about_budget

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message

    from gemtui.bus.events import Event
    from gemtui.tui.view import ConversationView, ops
    from gemtui.tui.widgets.approval_queue import ApprovalQueue
    from gemtui.tui.widgets.status_line import StatusLine
    from gemtui.tui.widgets.thought_stream import ThoughtStream
    from gemtui.tui.widgets.todo_panel import TodoPanel
    from gemtui.tui.widgets.transcript import Transcript
    from gemtui.tui.widgets.usage_panel import UsagePanel

__all__ = ["OpDrawing"]


class _Screen(Protocol):
    """What the drawing uses of ``MainScreen``, named here rather than imported: the
    screen imports this module."""

    @property
    def SignInNeeded(self) -> Callable[[str], Message]: ...  # the message class
    @property
    def AccountRefused(self) -> Callable[[str], Message]: ...  # the message class
    @property
    def transcript(self) -> Transcript: ...
    @property
    def approvals(self) -> ApprovalQueue: ...
    @property
    def status(self) -> StatusLine: ...
    @property
    def usage(self) -> UsagePanel: ...
    @property
    def todos(self) -> TodoPanel: ...
    @property
    def thoughts(self) -> ThoughtStream: ...
    @property
    def app(self) -> App[Any]: ...
    def post_message(self, message: Message) -> bool: ...
    def set_timer(self, delay: float, callback: Callable[[], None], *, name: str) -> object: ...


_clock = time.monotonic
"""The retry countdown's clock (tests move it instead of waiting)."""


class OpDrawing:
    """What each view operation does to the main screen, and the view model behind it."""

    def __init__(self, screen: _Screen, drawn: Callable[[ops.Op], object]) -> None:
        self.screen = screen
        self._drawn = drawn
        """Told each op once drawn (the screen-reader mode says its line)."""
        self._view: ConversationView | None = None
        self._appliers: dict[type[ops.Op], Callable[[Any], object]] = {}

    @property
    def view(self) -> ConversationView:
        """The rules of what the events show, made with the first event."""
        if self._view is None:
            from gemtui.tui.view import ConversationView

            status = self.screen.status
            self._view = ConversationView(provider=lambda: status.provider, clock=lambda: _clock())
        return self._view

    def feed(self, event: Event) -> None:
        """Feed one engine event to the view model and draw what it changes."""
        for op in self.view.feed(event):
            self.apply(op)

    def apply(self, op: ops.Op) -> None:
        """Draw one view operation on the widget it belongs to."""
        if not self._appliers:
            self._appliers = self.table()
        self._appliers[type(op)](op)
        self._drawn(op)

    def table(self) -> dict[type[ops.Op], Callable[[Any], object]]:
        """Each view operation's widget call (built with the first event: the first
        frame needs none of them, issue 26)."""
        from gemtui.tui.view import ops

        s = self.screen
        return {
            ops.AnswerOpened: lambda o: (
                None if s.transcript.answer_open else s.transcript.begin_answer()
            ),
            ops.AnswerText: lambda o: s.transcript.append_answer(o.text),
            ops.Streamed: self._streamed,
            ops.ThoughtText: lambda o: s.thoughts.add_thought(o.text, o.subject, o.prompt_id),
            ops.ThoughtMarker: lambda o: s.transcript.add_thought_marker(o.subject),
            ops.AnswerClosed: lambda o: s.transcript.end_answer(),
            ops.AnswerDiscarded: lambda o: s.transcript.discard_answer(),
            ops.SubagentText: lambda o: s.transcript.subagent_text(o.parent_id, o.text),
            ops.SubagentTurn: self._subagent_turn,
            ops.ToolCallShown: self._tool_call,
            ops.ToolOutputShown: lambda o: s.transcript.append_tool_output(o.call_id, o.text),
            ops.Notice: lambda o: s.transcript.add_notice(o.text, o.severity),
            ops.ScrolledToLatest: lambda o: s.transcript.scroll_to_latest(),
            ops.UserPromptShown: lambda o: s.transcript.add_user(o.text),
            ops.PromptCancelled: lambda o: s.transcript.mark_cancelled(),
            ops.TodosShown: lambda o: s.todos.show_todos(list(o.statuses), list(o.lines)),
            ops.TurnCounted: lambda o: s.usage.record_turn(o.usage, o.cost),
            ops.CompressionCounted: lambda o: s.usage.record_compression(o.before, o.after),
            ops.AccountShown: lambda o: s.usage.show_account(o.status),
            ops.LimitsShown: lambda o: s.usage.show_limits(o.limits),
            ops.StreamEnded: lambda o: s.usage.end_stream(),
            ops.StatusChanged: self._status_changed,
            ops.ModelCallStarted: self._call_started,
            ops.TurnEnded: lambda o: s.status.turn_ended(),
            ops.RetryWaitStarted: lambda o: self._count_down(),
            ops.McpViewsStale: self._mcp_views_stale,
            ops.SignInNeeded: lambda o: s.post_message(s.SignInNeeded(o.reason)),
            ops.AccountRefused: lambda o: s.post_message(s.AccountRefused(o.reason)),
            ops.BudgetQuestion: lambda o: ask_about_budget(s.app, o.asked, s.transcript),
            ops.WindowChanged: lambda o: s.usage.follow_model(o.context_window, o.priced),
        }

    def _call_started(self, _op: ops.ModelCallStarted) -> None:
        self.screen.status.model_call_started()
        self.screen.usage.call_started()

    def _streamed(self, op: ops.Streamed) -> None:
        self.screen.usage.record_streamed(op.text)
        self.screen.status.streamed(len(op.text), thought=op.thought)

    def _subagent_turn(self, op: ops.SubagentTurn) -> None:
        agent = self.screen.transcript.subagent_turn(op.parent_id, op.tokens, op.cost)
        self.screen.usage.record_subagent_turn(agent, op.usage, op.cost)

    def _tool_call(self, op: ops.ToolCallShown) -> None:
        call, approvals = op.call, self.screen.approvals
        self.screen.transcript.upsert_tool(call, op.parent_id)
        approvals.upsert(call, op.prompt_id, agent=approvals.front_agent)
        self.screen.status.call_changed(call.call_id, call.name, call.state.value)

    def _status_changed(self, op: ops.StatusChanged) -> None:
        status = self.screen.status
        for field in ("provider", "model", "busy", "mcp", "mcp_trouble", "limits"):
            value = getattr(op, field)
            if value is not None:
                setattr(status, field, value)

    def _count_down(self) -> None:
        """One tick of the retry countdown (the view model says what and when next)."""
        status = self.screen.status
        busy, next_tick = self.view.count_down(status.busy)
        if busy is not None:
            status.busy = busy
        if next_tick is not None:
            self.screen.set_timer(next_tick, self._count_down, name="retry-countdown")

    def _mcp_views_stale(self, _op: ops.McpViewsStale) -> None:
        from gemtui.tui.screens.mcp import McpScreen

        for screen in self.screen.app.screen_stack:
            if isinstance(screen, McpScreen):
                screen.refresh_states()
