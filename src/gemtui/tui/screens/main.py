"""The main screen: transcript, thought stream, approvals, usage, prompt and status line.

Engine events arrive as ``BusEvent`` messages (posted by ``tui.bridge``) and are routed
here to the panes; the panes themselves never see the bus. Prompts, answers and thoughts
are shown with known secrets masked (streamed text through a ``StreamRedactor``), as the
store will keep them and a resumed session will show them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gemtui.bus.values import TerminateReason, ToolCallState
from gemtui.redact import StreamRedactor, redact
from gemtui.tui.bridge import BusEvent
from gemtui.tui.pager import open_in_pager
from gemtui.tui.widgets.prompt_input import PromptInput
from gemtui.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from gemtui.bus import events as ev
    from gemtui.tui.widgets.approval_queue import ApprovalQueue
    from gemtui.tui.widgets.thought_stream import ThoughtStream
    from gemtui.tui.widgets.todo_panel import TodoPanel
    from gemtui.tui.widgets.transcript import Transcript
    from gemtui.tui.widgets.usage_panel import UsagePanel

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "MainScreen"]


@cache
def _delta_classes() -> tuple[type[ev.ContentDelta], type[ev.ThoughtDelta]]:
    """The text events, imported with the first event rather than before the first frame."""
    from gemtui.bus.events import ContentDelta, ThoughtDelta

    return ContentDelta, ThoughtDelta


MIN_WIDTH, MIN_HEIGHT = 60, 15
"""Below this the layout cannot hold a transcript, a prompt and an approval: say so."""

TYPING_PAUSE = 1.0
"""A key pressed in the prompt this recently means the person is typing: a call that
arrives then does not take the focus (F8 goes to it)."""

_clock = time.monotonic
"""The retry countdown's clock (tests move it instead of waiting)."""


class MainScreen(Screen[None]):
    """Where the conversation happens."""

    CSS_PATH = "main.tcss"
    AUTO_FOCUS = "#prompt"
    BINDINGS: ClassVar = [
        Binding("ctrl+o", "toggle_tool_output", "Expand tool output", priority=True, show=False),
        Binding("ctrl+g", "open_tool_output", "Open whole tool output", priority=True, show=False),
        # Priority so the prompt (a TextArea: Ctrl+Y is redo there) does not take them; they
        # act only with the prompt or the transcript focused (check_action), so in the
        # approval queue Shift+Tab moves focus back and no dialog ever changes the mode.
        # Ctrl+Y in a prompt that has something to redo redoes (action_mode_key).
        Binding("shift+tab", "mode_key('cycle')", "Approval mode", priority=True),
        Binding("ctrl+y", "mode_key('yolo')", "Yolo", priority=True),
    ]

    class SignInNeeded(Message):
        """The Google account's grant was refused: the app opens the sign-in dialog."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class ModeKeyPressed(Message):
        """Shift+Tab (``cycle``) or Ctrl+Y (``yolo``) pressed where they mean a mode change."""

        def __init__(self, kind: str) -> None:
            super().__init__()
            self.kind = kind

    def __init__(
        self,
        *,
        workspace: Path,
        context_window: int = 0,
        panes_after_first_frame: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.workspace = workspace
        self._context_window = context_window
        self._panes_later = panes_after_first_frame
        self._panes_mounting: list[AwaitMount] = []
        """The side panes are mounted after the first frame (the app's start-up screen:
        no engine, so no event for them, until after that frame; issue 26)."""
        self.status_values: dict[str, Any] = {}
        self._mcp_states: dict[str, str] = {}
        """Each MCP server's latest status, for the status line's summary."""
        """Initial status line fields, applied on mount."""
        self.slash_commands: dict[str, str] = {}
        """Every slash command with its help, for the prompt's completion."""
        self.argument_choices: dict[str, list[str]] = {}
        """Slash-command argument completions for the prompt."""
        self._thought_subject: str | None = None
        self._thought_marked = False
        """This model call's thinking already has its marker in the transcript."""
        self._answer_mask = StreamRedactor()
        self._thought_mask = StreamRedactor()
        self._last_thought: ev.ThoughtDelta | None = None
        """The thought whose masked tail is held back, for its subject and prompt."""
        self._failed_prompts: set[str] = set()
        """Prompts whose failure is already in the transcript (said once, not twice)."""
        self._retry: tuple[float, str] | None = None
        """When a retry wait ends and the attempt it leads to, while counting down."""
        self._routes: dict[type[ev.Event], Callable[[Any], None]] = {}
        """Each event class's handler, filled when the first event comes (``_route``)."""

    def compose(self) -> ComposeResult:
        from gemtui.tui.widgets.transcript import Transcript

        with Horizontal(id="body"):
            with Vertical(id="centre"):
                yield Transcript(id="transcript")
                if not self._panes_later:
                    yield self._approval_queue()
            with Vertical(id="side"):  # its place is taken now, its panes maybe later
                if not self._panes_later:
                    yield from self._side_panes()
        yield PromptInput(workspace=self.workspace, id="prompt")
        yield StatusLine(id="status")
        yield Static(id="too-small")

    @staticmethod
    def _approval_queue() -> Widget:
        from gemtui.tui.widgets.approval_queue import ApprovalQueue

        return ApprovalQueue(id="approvals")

    def _side_panes(self) -> list[Widget]:
        from gemtui.tui.widgets.thought_stream import ThoughtStream
        from gemtui.tui.widgets.todo_panel import TodoPanel
        from gemtui.tui.widgets.usage_panel import UsagePanel

        thoughts = ThoughtStream(id="thoughts")
        thoughts.border_title = "Thoughts"
        usage = UsagePanel(context_window=self._context_window, id="usage")
        return [thoughts, TodoPanel(id="todos"), usage]

    def _fill_panes(self) -> None:
        """Mount the approval queue and the side panes, once. Neither shows anything
        before the engine runs, so they need not hold up the first frame (issue 26)."""
        if not self._panes_mounting:
            self._panes_mounting = [
                self.query_one("#centre").mount(self._approval_queue()),
                self.query_one("#side").mount_all(self._side_panes()),
            ]

    @property
    def panes_mounted(self) -> bool:
        """The approval queue and the side panes are in place (keys typed while gemtui
        starts may come before them: such keys find nothing to act on yet)."""
        return bool(self.query("#approvals")) and bool(self.query("#usage"))

    async def panes_ready(self) -> None:
        """Return once every pane is mounted (at once when they came with the screen)."""
        if self._panes_later:
            self._fill_panes()
            for mounting in self._panes_mounting:
                await mounting

    def on_resize(self, event: Resize) -> None:
        width, height = event.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.set_class(small, "-too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"gemtui needs a terminal of at least {MIN_WIDTH}×{MIN_HEIGHT};"
                f" this one is {width}×{height}.\n\nMake the window larger"
                " (your work goes on meanwhile)."
            )

    def on_mount(self) -> None:
        if self._panes_later:
            self.call_after_refresh(self._fill_panes)
        for field, value in self.status_values.items():
            setattr(self.status, field, value)
        self.prompt.slash_commands = self.slash_commands
        self.prompt.argument_choices = self.argument_choices
        self.prompt.focus()

    # -- panes -----------------------------------------------------------------------------------
    @property
    def transcript(self) -> Transcript:
        from gemtui.tui.widgets.transcript import Transcript

        return self.query_one("#transcript", Transcript)

    @property
    def approvals(self) -> ApprovalQueue:
        from gemtui.tui.widgets.approval_queue import ApprovalQueue

        return self.query_one("#approvals", ApprovalQueue)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one("#prompt", PromptInput)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#status", StatusLine)

    @property
    def usage(self) -> UsagePanel:
        from gemtui.tui.widgets.usage_panel import UsagePanel

        return self.query_one("#usage", UsagePanel)

    @property
    def todos(self) -> TodoPanel:
        from gemtui.tui.widgets.todo_panel import TodoPanel

        return self.query_one("#todos", TodoPanel)

    @property
    def thoughts(self) -> ThoughtStream:
        from gemtui.tui.widgets.thought_stream import ThoughtStream

        return self.query_one("#thoughts", ThoughtStream)

    # -- engine events ---------------------------------------------------------------------------
    def _route(self, event: ev.Event) -> Callable[[Any], None] | None:
        """The handler of ``event``'s class. The table (and the event classes) is built
        with the first event, not at start: the first frame needs neither (issue 26)."""
        if not self._routes:
            from gemtui.bus import events as ev

            self._routes = {
                ev.SessionStarted: self._session_started,
                ev.UserMessage: self._user_message,
                ev.TurnStarted: self._turn_started,
                ev.ContentDelta: self._content,
                ev.ThoughtDelta: self._thought,
                ev.StreamRetried: self._stream_retried,
                ev.TurnFinished: self._turn_finished,
                ev.ToolCallStateChanged: self._tool_call,
                ev.ToolOutput: lambda e: self.transcript.append_tool_output(e.call_id, e.text),
                ev.TodosUpdated: lambda e: self.todos.show_todos(
                    [t.get("status", "") for t in e.todos], e.lines()
                ),
                ev.HistoryCompressed: self._compressed,
                ev.ErrorOccurred: self._error,
                ev.RequestRetrying: self._retrying,
                ev.ModelFallback: self._fallback,
                ev.ModelChanged: self._model_changed,
                ev.ProviderProgress: lambda e: setattr(self.status, "busy", e.message),
                ev.AccountStatus: self._account,
                ev.McpServerChanged: self._mcp_changed,
                ev.HookRan: lambda e: self.transcript.add_notice(
                    redact(e.summary()), "information" if e.outcome == "ok" else "warning"
                ),
                ev.ModelRouted: self._routed,
                ev.LoopDetected: lambda e: self.transcript.add_notice(e.message, "warning"),
                ev.Citation: lambda e: self.transcript.add_notice(e.text),
                ev.AgentFinished: self._agent_finished,
            }
        return self._routes.get(type(event))

    def on_bus_event(self, message: BusEvent) -> None:
        """Route one engine event to the panes; a view bug becomes a notification (the
        session is kept), and the bridge is told it may send the next batch."""
        try:
            event = message.event
            route = self._route(event)
            content, thought = _delta_classes()
            if event.parent_id and isinstance(event, content | thought):
                route = None  # a subagent's text: on its card, never as the answer
                if isinstance(event, content):
                    self.transcript.subagent_text(event.parent_id, event.text)
            if route is not None:
                route(message.event)
        except Exception as exc:
            report = getattr(self.app, "report_error", None)
            if report is None:
                raise
            report(exc)
        finally:
            message.done()

    def _session_started(self, e: ev.SessionStarted) -> None:
        self.status.provider = e.provider
        self.status.model = e.model

    def _turn_started(self, e: ev.TurnStarted) -> None:
        self._thought_marked = False
        self.status.model = e.model
        self.status.model_call_started()

    def _open_answer(self) -> None:
        if not self.transcript.answer_open:
            self.transcript.begin_answer()

    def _close_answer(self) -> None:
        self._flush_thought()
        rest = self._answer_mask.finish()
        if rest:
            self.transcript.append_answer(rest)
        self.transcript.end_answer()

    def _content(self, e: ev.ContentDelta) -> None:
        self._flush_thought()
        self._open_answer()
        shown = self._answer_mask.feed(e.text)
        if shown:
            self.transcript.append_answer(shown)
        self.usage.record_streamed(e.text)
        self.status.streamed(len(e.text))

    def _flush_thought(self) -> None:
        rest, last = self._thought_mask.finish(), self._last_thought
        if rest and last is not None:
            self.thoughts.add_thought(rest, last.subject, last.prompt_id)

    def _thought(self, e: ev.ThoughtDelta) -> None:
        last = self._last_thought
        if last is not None and (last.subject, last.prompt_id) != (e.subject, e.prompt_id):
            self._flush_thought()
        self._last_thought = e
        shown = self._thought_mask.feed(e.text)
        if shown:
            self.thoughts.add_thought(shown, e.subject, e.prompt_id)
        if not self._thought_marked or (e.subject and e.subject != self._thought_subject):
            self._thought_marked = True  # a call that thinks shows it, subject or not
            self._thought_subject = e.subject
            self.transcript.add_thought_marker(e.subject)
        self.usage.record_streamed(e.text)
        self.status.streamed(len(e.text), thought=True)

    def _stream_retried(self, e: ev.StreamRetried) -> None:
        self._answer_mask = StreamRedactor()  # the partial answer is discarded, tail and all
        self.transcript.discard_answer()
        self.transcript.add_notice(f"The stream broke ({e.reason}); retrying.", "warning")

    def _turn_finished(self, e: ev.TurnFinished) -> None:
        if e.parent_id:  # a subagent's model call: its card and its usage line
            u = e.usage
            tokens = u.total or u.input + u.output + u.thoughts
            agent = self.transcript.subagent_turn(e.parent_id, tokens, e.cost)
            self.usage.record_subagent_turn(agent, e.usage, e.cost)
            return
        self._close_answer()
        self.usage.record_turn(e.usage, e.cost)
        if e.message:
            self.transcript.add_notice(e.message, "warning")

    def _tool_call(self, e: ev.ToolCallStateChanged) -> None:
        self._close_answer()
        call = e.call
        if call.state == ToolCallState.AWAITING_APPROVAL:
            self.transcript.scroll_to_latest()  # what is being approved is in view
        self.transcript.upsert_tool(call, e.parent_id)
        self.approvals.upsert(call, e.prompt_id, agent=self.approvals.front_agent)
        self.status.call_changed(call.call_id, call.name, call.state.value)

    def _compressed(self, e: ev.HistoryCompressed) -> None:
        self.usage.record_compression(e.tokens_before, e.tokens_after)
        self.transcript.add_notice(
            f"History compressed: {e.tokens_before:,} → {e.tokens_after:,} tokens."
        )

    def _user_message(self, e: ev.UserMessage) -> None:
        self.transcript.scroll_to_latest()
        self.transcript.add_user(redact(e.text))
        if e.attached:  # what @paths attached, right under the prompt
            self.transcript.add_notice(redact(e.attached))

    def _error(self, e: ev.ErrorOccurred) -> None:
        text = e.message + (f"\n{e.hint}" if e.hint else "")
        severity = "warning" if e.kind == "warning" else "error"
        if severity == "error":
            self._failed_prompts.add(e.prompt_id)
        self.transcript.add_notice(text, severity)
        if e.kind == "FatalAuthenticationError" and self.status.provider == "code-assist":
            self.post_message(self.SignInNeeded(e.message))  # the Google grant was refused

    def _retrying(self, e: ev.RequestRetrying) -> None:
        """Count the wait down on the status line until the next attempt starts."""
        attempt = f"(attempt {e.next_attempt}/{e.max_attempts})"
        self._retry = (_clock() + e.wait, f"{attempt} · {e.target}" if e.target else attempt)
        self._count_down()
        self.set_timer(0.25, self._count_down, name="retry-countdown")

    def _count_down(self) -> None:
        if self._retry is None:
            return
        shown = self.status.busy
        if shown and not shown.startswith("retrying"):
            self._retry = None  # something else happened since: the wait is over
            return
        ends, attempt = self._retry
        left = ends - _clock()
        if left > 0.5:
            self.status.busy = f"retrying in {left:.0f}s {attempt}"
            self.set_timer(min(0.25, left - 0.5), self._count_down, name="retry-countdown")
        else:
            self.status.busy = f"retrying now {attempt}"
            self._retry = None

    def _routed(self, e: ev.ModelRouted) -> None:
        """``auto`` picked this prompt's model: say which and why; its call's tokens count."""
        self.status.model = e.model
        self.transcript.add_notice(e.summary(), "warning" if e.fell_back else "information")
        if e.usage.total or e.usage.input:
            self.usage.record_turn(e.usage, None)

    def _mcp_changed(self, e: ev.McpServerChanged) -> None:
        """The status line counts ready servers; an open /mcp view redraws."""
        from gemtui.tui.screens.mcp import McpScreen

        self._mcp_states[e.server] = e.status
        states = list(self._mcp_states.values())
        failed = states.count("failed")
        text = f"MCP {states.count('ready')}/{len(states)}"
        text += " …" if "starting" in states else ""
        text += f" ✗{failed}" if failed else ""
        self.status.mcp = text
        self.status.mcp_trouble = failed > 0
        for screen in self.app.screen_stack:
            if isinstance(screen, McpScreen):
                screen.refresh_states()

    def _account(self, e: ev.AccountStatus) -> None:
        self.usage.show_account(e)

    def _model_changed(self, e: ev.ModelChanged) -> None:
        """The status line and the usage pane follow the session's model, from its event."""
        self.status.model = e.to_model
        self.status.provider = e.to_provider
        self.usage.context_window = e.context_window
        self.usage.expect_price(e.priced)

    def _fallback(self, e: ev.ModelFallback) -> None:
        self.transcript.add_notice(f"Switched to {e.to_model}: {e.reason}", "warning")

    def _agent_finished(self, e: ev.AgentFinished) -> None:
        self._close_answer()
        self._thought_subject = None
        self._retry = None
        self.status.busy = ""
        self.usage.end_stream()  # a cancelled answer is no longer streaming
        said = e.prompt_id in self._failed_prompts
        self._failed_prompts.discard(e.prompt_id)
        self.status.turn_ended()
        if e.reason == TerminateReason.ABORTED:
            self.transcript.mark_cancelled()
            self.transcript.add_notice(
                "Cancelled. Nothing already received is lost; the model is told the request"
                " was cancelled and will not act on it unless you ask again.",
                "warning",
            )
        elif e.reason == TerminateReason.MAX_TURNS:
            self.transcript.add_notice("Stopped at the turn limit.", "warning")
        elif e.reason != TerminateReason.GOAL and e.error and not said:
            self.transcript.add_notice(e.error, "error")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "mode_key":
            return self._mode_keys_apply()
        return True

    def _mode_keys_apply(self) -> bool:
        """The mode keys belong to the conversation: the prompt, the transcript or nothing."""
        focused = self.focused
        if focused is None or focused is self.prompt:
            return True
        return self.transcript in focused.ancestors_with_self

    def action_mode_key(self, kind: str) -> None:
        """Ctrl+Y redoes while the prompt has an undone edit to bring back (as in any
        editor: text undone is never one key from lost); else it is the yolo key."""
        prompt = self.prompt
        if kind == "yolo" and self.focused is prompt and prompt.can_redo:
            prompt.redo()
            return
        self.post_message(self.ModeKeyPressed(kind))

    def action_toggle_tool_output(self) -> None:
        """Ctrl+O: show all of the last folded tool card (its arguments and output)."""
        if not self.transcript.toggle_last_tool():
            self.app.bell()

    def action_open_tool_output(self) -> None:
        """Ctrl+G: the last saved whole output in ``$PAGER`` (less), on the real terminal:
        megabytes are the pager's job, not the transcript's."""
        path = self.transcript.last_output_file()
        if path is None:
            self.app.bell()
            return
        open_in_pager(self.app, path)

    # -- approvals and completion ----------------------------------------------------------------
    def on_approval_queue_changed(self, event: ApprovalQueue.Changed) -> None:
        self.set_class(event.count > 0, "-approvals")
        if event.count > 0:
            prompt = self.prompt
            typing = time.monotonic() - prompt.typed_at < TYPING_PAUSE
            if self.focused is None or (self.focused is prompt and not prompt.text and not typing):
                self.approvals.take_focus()
            elif self.focused is prompt:
                self.notify("A tool call awaits approval: press F8 to review it.")
        elif self.focused is None or self.approvals in self.focused.ancestors_with_self:
            self.prompt.focus()

    @on(PromptInput.ScrollRequested)
    async def _scroll_transcript(self, event: PromptInput.ScrollRequested) -> None:
        await self.transcript.run_action(event.action)

    @on(PromptInput.Suggested)
    async def _show_suggestions(self, event: PromptInput.Suggested) -> None:
        options = next(self.query("#suggestions").results(OptionList), None)
        if options is None:  # made on first use: the first frame need not style it
            if not event.items:
                return
            options = OptionList(id="suggestions")
            options.can_focus = False
            await self.mount(options, before=self.prompt)
        options.set_options(
            Option(f"{item}  [dim]{help_text}[/]" if help_text else item)
            for item, help_text in event.items
        )
        options.set_class(bool(event.items), "-visible")
        if event.items:
            options.highlighted = event.index

    @on(OptionList.OptionSelected, "#suggestions")
    def _pick_suggestion(self, event: OptionList.OptionSelected) -> None:
        self.prompt.accept_suggestion(event.option_index)
        self.prompt.focus()
