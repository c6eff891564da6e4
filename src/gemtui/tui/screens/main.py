"""The main screen: transcript, thought stream, approvals, usage, prompt and status line.

Engine events arrive as ``BusEvent`` messages (posted by ``tui.bridge``); the view model
(``tui.view.ConversationView``) holds the rules of what they show — masking, thought
flushing, subagent routing, usage counting — and this screen only draws the operations it
returns on the panes, which never see the bus.
"""

from __future__ import annotations

import time
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

from gemtui.tui.bridge import BusEvent
from gemtui.tui.screen_reader import say_op, spoken_log
from gemtui.tui.screens.op_drawing import OpDrawing
from gemtui.tui.screens.prompt_extras import PromptExtras
from gemtui.tui.widgets.attachment_chips import AttachmentChips
from gemtui.tui.widgets.prompt_input import PromptInput
from gemtui.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from gemtui.tui.widgets.approval_queue import ApprovalQueue
    from gemtui.tui.widgets.thought_stream import ThoughtStream
    from gemtui.tui.widgets.todo_panel import TodoPanel
    from gemtui.tui.widgets.transcript import Transcript
    from gemtui.tui.widgets.usage_panel import UsagePanel

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "MainScreen"]

MIN_WIDTH, MIN_HEIGHT = 60, 15
"""Below this the layout cannot hold a transcript, a prompt and an approval: say so."""

TYPING_PAUSE = 1.0
"""A key pressed in the prompt this recently means the person is typing: a call that
arrives then does not take the focus (F8 goes to it)."""


class MainScreen(PromptExtras, Screen[None]):
    """Where the conversation happens."""

    CSS_PATH = "main.tcss"
    AUTO_FOCUS = "#prompt"
    BINDINGS: ClassVar = [
        Binding("ctrl+o", "toggle_tool_output", "Expand tool output", priority=True, show=False),
        Binding("ctrl+g", "open_tool_output", "Editor / whole output", priority=True, show=False),
        # Priority, or the prompt (a TextArea: Ctrl+Y is redo) takes them; they act with the
        # prompt or transcript focused only (check_action): Shift+Tab in the approval queue
        # moves focus back, no dialog changes the mode; Ctrl+Y with a redo redoes.
        Binding("shift+tab", "mode_key('cycle')", "Approval mode", priority=True),
        Binding("ctrl+y", "mode_key('yolo')", "Yolo", priority=True),
    ]

    class SignInNeeded(Message):
        """The Google account's grant was refused: the app opens the sign-in dialog."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class AccountRefused(Message):
        """Google refused the account for Code Assist: the app offers what works instead."""

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
        self._panes_mounting: list[AwaitMount] = []  # the start-up screen's, once built
        self.status_values: dict[str, Any] = {}
        """Initial status line fields, applied on mount."""
        self.slash_commands: dict[str, str] = {}
        """Every slash command with its help, for the prompt's completion."""
        self.argument_choices: dict[str, list[str]] = {}
        """Slash-command argument completions for the prompt."""
        self._transcript: Transcript | None = None
        """The transcript once made (composed, or mounted after the first frame)."""
        self._approvals: ApprovalQueue | None = None
        """The approval queue once made (composed, or mounted when first used)."""
        self._front_agent = ""
        """The front agent's id, for the approval queue (now, or when it is made)."""
        self.drawing = OpDrawing(self, drawn=lambda op: say_op(self, op))
        """The view model's operations drawn on this screen's widgets."""

    def compose(self) -> ComposeResult:
        from gemtui.tui.widgets.first_tip import FirstTip

        with Horizontal(id="body"):
            with Vertical(id="centre"):
                yield from spoken_log(self.app)  # the screen-reader mode's plain lines
                if not self._panes_later:
                    yield self._new_transcript()
                yield FirstTip(id="first-tip")
                if not self._panes_later:
                    yield self._new_approval_queue()
            with Vertical(id="side"):  # its place is taken now, its panes maybe later
                if not self._panes_later:
                    yield from self._side_panes()
        yield AttachmentChips(id="chips")
        yield PromptInput(workspace=self.workspace, id="prompt")
        yield StatusLine(id="status")
        yield Static(id="too-small")

    def _new_approval_queue(self) -> ApprovalQueue:
        from gemtui.tui.widgets.approval_queue import ApprovalQueue

        self._approvals = ApprovalQueue(id="approvals")
        self._approvals.front_agent = self._front_agent
        return self._approvals

    def _side_panes(self) -> list[Widget]:
        from gemtui.tui.widgets.thought_stream import ThoughtStream
        from gemtui.tui.widgets.todo_panel import TodoPanel
        from gemtui.tui.widgets.usage_panel import UsagePanel

        thoughts = ThoughtStream(id="thoughts")
        thoughts.border_title = "Thoughts"
        usage = UsagePanel(context_window=self._context_window, id="usage")
        return [thoughts, TodoPanel(id="todos"), usage]

    def _fill_panes(self) -> None:
        """Mount the side panes once the engine is built: not before the first frame (26),
        nor while the engine loads, taking the CPU (34). The approval queue, hidden while
        empty, comes at its first use (``approvals``)."""
        if not self._panes_mounting:
            self._panes_mounting = [self.query_one("#side").mount_all(self._side_panes())]

    def set_context_window(self, tokens: int) -> None:
        """The session's context window, for the usage pane (now, or when it is mounted)."""
        if self.panes_mounted:
            self.usage.context_window = tokens
        self._context_window = tokens

    @property
    def panes_mounted(self) -> bool:
        """The side panes are in place (keys typed at start come first)."""
        return bool(self.query("#usage"))

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
                f"gemtui needs a terminal of at least {MIN_WIDTH}×{MIN_HEIGHT}; this one is"
                f" {width}×{height}.\n\nMake the window larger (your work goes on meanwhile)."
            )

    def on_mount(self) -> None:
        for field, value in self.status_values.items():
            setattr(self.status, field, value)
        self.prompt.slash_commands = self.slash_commands
        self.prompt.argument_choices = self.argument_choices
        self.prompt.focus()

    # -- panes -----------------------------------------------------------------------------------
    @property
    def transcript(self) -> Transcript:
        """The conversation; on the start-up screen it is mounted at the first use or
        just after the first frame, whichever comes first (see ``mount_transcript``)."""
        return self._transcript or self.mount_transcript()

    def mount_transcript(self) -> Transcript:
        """Put the (empty) transcript in its place, once. The start-up screen's first frame
        goes without it: an empty transcript looks like the column it fills (the tip sits
        at the bottom either way), and its import, rules and scroll bar are about a fifth
        of the first frame's work. Mounting attaches it at once, so what is said before
        the mount has finished lands in it."""
        from gemtui.tui.widgets.first_tip import FirstTip

        if self._transcript is not None:
            return self._transcript
        transcript = self._new_transcript()
        tip = self.query("#first-tip")
        self.query_one("#centre").mount(transcript, before=tip.first() if tip else None)
        for first_tip in tip.results(FirstTip):
            first_tip.follow(transcript)
        return transcript

    def _new_transcript(self) -> Transcript:
        from gemtui.tui.widgets.transcript import Transcript

        self._transcript = Transcript(id="transcript")
        return self._transcript

    @property
    def approvals(self) -> ApprovalQueue:
        """The approval queue; on the start-up screen it is mounted at its first use (the
        first tool call): hidden while empty, its widgets and imports were a third of the
        panes' mount at the engine's hand-over, just before the first prompt is sent."""
        queue = self._approvals
        if queue is None:
            queue = self._new_approval_queue()
            self.query_one("#centre").mount(queue)
        return queue

    @property
    def front_agent(self) -> str:
        """The agent whose session this screen shows: its calls in the queue need no label."""
        return self._front_agent

    @front_agent.setter
    def front_agent(self, agent_id: str) -> None:
        self._front_agent = agent_id
        if self._approvals is not None:
            self._approvals.front_agent = agent_id

    def agents_asking(self) -> set[str]:
        """The agents with a call waiting for approval (none before the queue is made)."""
        return self._approvals.asking() if self._approvals is not None else set()

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
    def on_bus_event(self, message: BusEvent) -> None:
        """Feed one engine event to the view model and draw what it changes; a view bug
        becomes a notification (the session is kept), and the bridge is told it may send
        the next batch."""
        try:
            self.drawing.feed(message.event)
        except Exception as exc:
            report = getattr(self.app, "report_error", None)
            if report is None:
                raise
            report(exc)
        finally:
            message.done()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "mode_key":
            return self._mode_keys_apply()
        return True

    def _mode_keys_apply(self) -> bool:
        """The mode keys belong to the conversation: the prompt, the transcript or nothing."""
        focused = self.focused
        if focused is None or focused is self.prompt:
            return True
        return self._transcript is not None and self._transcript in focused.ancestors_with_self

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
        elif self.focused is None or self._approvals in self.focused.ancestors_with_self:
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
