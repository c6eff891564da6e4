"""The Textual app: owns the session's controller, runs prompts in a worker, answers
approvals.

The controller (``session_host.SessionController``, ``app.controller``) starts the
engine, the bridge worker (the only bus subscriber) and the session; the app runs each
prompt in the exclusive ``turn`` worker, queues prompts typed while a turn runs, and
forwards the approval queue's decisions to ``bus.decide``. An unexpected exception
becomes a notification; the session is kept.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.events import Resize
from textual.reactive import Initialize, Reactive

from gemtui.agent.assembly import RunOptions
from gemtui.config.ui_choice import UiChoice
from gemtui.modes import ApprovalMode
from gemtui.tui.commands import SLASH_COMMANDS, parse_slash
from gemtui.tui.find_and_copy import FindAndCopy
from gemtui.tui.screen_reader import say_dialogs, use_screen_reader
from gemtui.tui.screens.main import MainScreen
from gemtui.tui.session_host import SessionController
from gemtui.tui.strip_cycle import mend_strip_cycles
from gemtui.tui.widgets.code_highlight import language_of
from gemtui.tui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widgets import TextArea

    from gemtui.agent.assembly import Assembled
    from gemtui.agent.session import Session
    from gemtui.config.settings import Settings
    from gemtui.config.trust import WorkspaceTrust
    from gemtui.store import SessionStore
    from gemtui.tui.agent_rows import AgentFleet
    from gemtui.tui.fleet_desk import AgentsNews, FleetDesk
    from gemtui.tui.themes import ThemeFailure
    from gemtui.tui.widgets.approval_queue import ApprovalQueue

__all__ = ["APPROVAL_CYCLE", "GemtuiApp"]

log = logging.getLogger(__name__)

APPROVAL_CYCLE = ApprovalMode.cycle()
"""Shift+Tab cycles these; Ctrl+Y toggles yolo on and off."""

UNASKED_MODES = {
    "yolo": (
        "Turn on yolo for this session?",
        "Every tool call (edits, shell commands, MCP tools) will run without asking, "
        "except what a deny rule stops. Ctrl+Y turns it off.",
    ),
    "auto_edit": (
        "Turn on auto_edit for this session?",
        "File edits in the workspace will be made without asking; shell commands still ask. "
        "Shift+Tab moves on.",
    ),
}
"""Modes that let calls run unasked: the question asked once per session before each."""

MODE_NOTES = {
    "default": "Reads run; edits and commands ask.",
    "auto_edit": "Edits run without asking; commands ask.",
    "plan": "Only tools that look are offered.",
    "yolo": "Every tool call runs without asking.",
}

NARROW_WIDTH = 100
"""Below this many columns the side panes hide (F4 shows them)."""


def _palette_provider() -> type:
    """The command palette provider, imported when Textual first asks for it."""
    from gemtui.tui.palette import GemtuiCommands

    return GemtuiCommands


class GemtuiApp(FindAndCopy):
    """gemtui's full-screen app; the session's life is its controller's."""

    TITLE = "gemtui"
    CSS_PATH = "screens/main.tcss"
    """The main screen's look, loaded with the app's: the start-up screen is the app's
    default screen, whose own ``CSS_PATH`` Textual does not read."""
    COMMANDS: ClassVar = App.COMMANDS | {_palette_provider}
    slash_commands = SLASH_COMMANDS

    BINDINGS: ClassVar = [
        Binding("escape", "cancel_turn", "Cancel turn", show=False),
        Binding("ctrl+c", "ctrl_c", "Clear / quit", priority=True, show=False),
        Binding("f1", "slash('/help')", "Help"),
        Binding("f2", "toggle_pane('-hide-thoughts')", "Thoughts"),
        Binding("f3", "toggle_pane('-hide-usage')", "Usage"),
        Binding("f4", "toggle_pane('-show-side')", "Side panes", show=False),
        Binding("f5", "slash('/agents')", "Agents", show=False),
        # Priority: the prompt (a TextArea) binds F6/F7 to selecting and would take them.
        Binding("f6", "copy('/copy')", "Copy answer", show=False, priority=True),
        Binding("f7", "copy('/copy code')", "Copy code", show=False, priority=True),
        Binding("f8", "focus_approvals", "Approvals", show=False),
    ]

    def __init__(
        self,
        *,
        settings: Settings | None,
        session: Session | None,
        workspace: Path,
        prompt: str | None = None,
        welcome_reason: str | None = None,
        raise_errors: bool = False,
        store: SessionStore | None = None,
        session_factory: Callable[[], Assembled] | None = None,
        trust: WorkspaceTrust | None = None,
        run_options: RunOptions | None = None,
        settings_loader: Callable[[], Settings] | None = None,
        ui: UiChoice | None = None,
    ) -> None:
        self.ui = ui or (UiChoice.of(settings.ui) if settings is not None else UiChoice())
        """What the first frame needs of ``[ui]``, read without validating the rest (set
        before Textual's ``__init__``, whose first read of the theme asks for it)."""
        super().__init__()
        mend_strip_cycles()
        self.exit_message: str | None = None  # why the app stopped before it could start
        use_screen_reader(self, self.ui.screen_reader)
        self.controller = SessionController(
            self,
            settings=settings,
            session=session,
            workspace=workspace,
            prompt=prompt,
            welcome_reason=welcome_reason,
            store=store,
            session_factory=session_factory,
            trust=trust,
            run_options=run_options,
            settings_loader=settings_loader,
        )
        self.raise_errors = raise_errors  # tests: a bug fails the test, not a notification
        self.crash_message: str | None = None
        """Set when the app had to stop on an unexpected error (launch prints it)."""
        self.key_at = 0.0
        """When the last key or paste arrived (``time.monotonic``): a streamed answer's
        re-render waits a frame after it, so what is typed is drawn first."""
        self._quit_armed = False
        self._modes_confirmed: set[tuple[str, str]] = set()
        """(session id, mode) pairs the person confirmed: yolo and auto_edit ask once each."""
        self._declined_mode: str | None = None
        """The mode the person just declined: Shift+Tab steps past it to the next one."""
        self.desk: FleetDesk | None = None
        """The fleet of agents side by side, when there is one (the agent view reads it)."""

    # -- the front session -----------------------------------------------------------------------
    def on_mount(self) -> None:
        say_dialogs(self)  # in screen-reader mode: each dialog's question, as a line
        self.controller.app_mounted()

    def get_default_screen(self) -> Screen[Any]:
        """The main screen itself while the engine starts (see the controller's)."""
        return self.controller.default_screen() or super().get_default_screen()

    def on_ready(self) -> None:
        """The first frame is on the terminal: only now build the engine."""
        self.controller.first_frame_drawn()

    # -- themes ----------------------------------------------------------------------------------
    def _first_theme(self) -> str:
        """The theme the app starts with, read once inside Textual's ``__init__``: every
        theme file is registered then, so the stylesheet is made with the chosen theme's
        variables and no second parse of every rule is queued before the first frame."""
        from gemtui.tui.themes import install_themes

        chosen, failed = install_themes(self, self.ui.theme)
        self.theme_failures: list[ThemeFailure] = failed
        return chosen

    theme: Reactive[str] = Reactive(Initialize(_first_theme))

    def get_theme_variable_defaults(self) -> dict[str, str]:
        theme = self.current_theme
        return {
            "diff-added": theme.success or "green",
            "diff-removed": theme.error or "red",
            "tool-pending": theme.warning or "yellow",
        }

    @property
    def main(self) -> MainScreen:
        return self.get_screen_of(MainScreen)

    def get_screen_of(self, kind: type[MainScreen]) -> MainScreen:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, kind):
                return screen
        raise LookupError("the main screen is not open")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette entries, less its Theme picker (the "gemtui: theme …" entries
        switch and save the choice) and with a Screenshot that says where it went."""
        for command in super().get_system_commands(screen):
            if command.title == "Theme":
                continue
            if command.title == "Screenshot":
                yield SystemCommand(
                    "Screenshot",
                    "Save an SVG screenshot of the screen (~/Downloads, else the workspace)",
                    lambda: self.set_timer(0.1, self.take_screenshot),
                )
                continue
            yield command

    def take_screenshot(self) -> Path | None:
        """Save the screen as SVG and say where, or why it could not be saved."""
        downloads = Path.home() / "Downloads"
        folder = downloads if downloads.is_dir() else self.controller.workspace
        try:
            saved = Path(self.save_screenshot(path=str(folder)))
        except OSError as exc:
            self.notify(f"Screenshot not saved in {folder}: {exc}", severity="error")
            return None
        self.notify(f"Screenshot saved: {saved}")
        return saved

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW_WIDTH, "-narrow")

    async def on_event(self, event: events.Event) -> None:
        """Typing goes to the prompt from anywhere on the main screen.

        A printable key or a paste aimed at a pane that does not take text (the
        transcript after Tab or a click, nothing focused) moves the focus to the prompt
        *before* Textual forwards it, so a burst of keys lands whole and in order. A key
        the focused pane binds (the approval keys) keeps its meaning.
        """
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self.key_at = time.monotonic()  # the transcript's flush lets this key's frame go first
            self._focus_prompt_for(event)
        await super().on_event(event)

    def _focus_prompt_for(self, event: events.Key | events.Paste) -> None:
        from textual.widgets import Input, TextArea

        screen = self.screen
        if not isinstance(screen, MainScreen) or isinstance(self.focused, (Input, TextArea)):
            return
        if isinstance(event, events.Key) and (
            not event.is_printable or event.key in screen.active_bindings
        ):
            return
        screen.set_focus(screen.prompt)  # now, not later: the next key must follow it

    # -- prompts ---------------------------------------------------------------------------------
    @on(PromptInput.Submitted)
    def _prompt_submitted(self, event: PromptInput.Submitted) -> None:
        self.submit(event.text)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.id == "prompt" and event.text_area.text:  # start-up's rest waits
            self.controller.drafting = True  # until ``submit`` (the clear before it is not)

    def submit(self, text: str) -> None:
        """Send a prompt (or run a slash command); queued while a turn runs."""
        if parse_slash(text) is not None:
            self.run_slash(text)
        else:
            self.send_prompt(text)
        self.controller.drafting = False  # sent: a turn or the queue says so from now on

    def send_prompt(self, text: str) -> None:
        """Send ``text`` to the session as typed (a ``!`` line runs in the shell)."""
        if self.session is None:
            if self.controller.session_factory is not None:  # still starting: keep it for later
                self.queued.append(text)
            return
        if self.turn_running or self.controller.compressing or self._front_busy:
            self.queued.append(text)
            self._show_queue()
            return
        from gemtui.tui.demo_end import demo_over

        if demo_over(self, text):  # nothing left to play: start for real instead
            return
        self._start_turn(text)

    def _start_turn(self, text: str) -> None:
        self.turn_running = True  # now, not in the worker: a second prompt must queue
        self.run_turn(text)

    def _show_queue(self) -> None:
        status = self.main.status
        status.busy = f"{len(self.queued)} queued" if self.queued else status.busy

    @work(exclusive=True, group="turn", name="turn", exit_on_error=False)
    async def run_turn(self, text: str, media: list[Any] | None = None) -> None:
        """One prompt through the engine; the transcript follows through the bridge."""
        assert self.session is not None
        self.turn_running = True
        try:
            if text.startswith("!") and text[1:].strip():  # shell mode: no model call
                from gemtui.tui.shell_mode import run_shell_line

                await run_shell_line(self, text[1:].strip())
            else:
                await self.session.send(text, media=media)  # media: images attached
        except Exception as exc:
            log.exception("turn failed")
            if self.raise_errors:
                raise
            if self.main.panes_mounted:  # no AgentFinished will end the estimate's line
                self.main.usage.end_stream()
            self.notify(
                f"The turn failed: {exc}. The session is kept; you can try again.",
                severity="error",
                timeout=10,
            )
        finally:
            self.turn_running = False
            self.call_after_refresh(self.controller.first_turn_over.set)  # its last lines shown
            if self.desk is not None:  # the front agent's own prompt ended: recount
                self.desk.show_counts()
            if self.queued:
                self.call_later(self.send_next)

    def send_next(self) -> None:
        """Send the next queued prompt when nothing runs."""
        busy = self.turn_running or self.controller.compressing or self._front_busy
        if self.queued and not busy:
            self._start_turn(self.queued.popleft())
            self._show_queue()

    # -- approvals -------------------------------------------------------------------------------
    def on_approval_queue_decided(self, event: ApprovalQueue.Decided) -> None:
        if event.agent_id and self.desk is not None:  # exactly the agent that asked
            decided = self.desk.decide(event.agent_id, event.correlation_id, event.decision)
        else:
            decided = self.session is not None and self.session.bus.decide(
                event.correlation_id, event.decision
            )
        if not decided:
            self.notify("That call is no longer waiting for approval.", severity="warning")

    def on_agents_news(self, event: AgentsNews) -> None:
        if self.desk is not None:
            self.desk.apply(event.news)

    def start_front_session(self, later: bool = False) -> None:
        from gemtui.tui.fleet_desk import start_in_fleet  # later: the fleet after a prompt

        self.desk = start_in_fleet(self, self.desk, later) or self.desk

    def attach_fleet(self, fleet: AgentFleet) -> FleetDesk:
        """Agents side by side from now on: the view, the counts, the one queue."""
        from gemtui.tui.fleet_desk import FleetDesk

        self.desk = FleetDesk(self, fleet, FleetDesk.switches_of(self.controller.settings))
        return self.desk

    async def on_unmount(self) -> None:
        """The app ends: background agents stop and close while the loop still runs."""
        self.controller.closing = True
        self.controller.first_turn_over.set()  # start-up's rest waiting for it: go on
        if self.desk is not None:
            await self.desk.aclose()

    @property
    def _front_busy(self) -> bool:
        return self.desk is not None and self.desk.front_busy

    def on_approval_queue_modify_requested(self, event: ApprovalQueue.ModifyRequested) -> None:
        from gemtui.tui.screens.dialogs import ModifyScreen

        conf = event.snapshot.confirmation
        if conf is None:
            return
        language = "bash" if conf.kind == "exec" else language_of(conf.file_path)

        def done(text: str | None) -> None:
            if text is not None:
                self.main.approvals.modified(event.snapshot.call_id, text, event.agent_id)

        self.push_screen(ModifyScreen(event.text, title=conf.title, language=language), done)

    def action_focus_approvals(self) -> None:
        if self.main.panes_mounted:  # typed while gemtui starts: no call can wait yet
            self.main.approvals.focus()

    # -- keys ------------------------------------------------------------------------------------
    def action_cancel_turn(self) -> None:
        if self.session is not None and self.turn_running:
            self.session.cancel()
            self._return_queued_to_prompt()
        elif self.desk is not None and self.desk.stop_front():  # its prompt runs in the fleet
            self._return_queued_to_prompt()
        elif not self.main.prompt.text:  # Esc Esc on an empty prompt: /rewind
            now = time.monotonic()
            if now - getattr(self, "_last_escape", -10.0) < 1.0:
                self._last_escape = -10.0
                self.run_slash("/rewind")
            else:
                self._last_escape = now

    def _return_queued_to_prompt(self) -> None:
        """Cancelling drops the queued prompts from the queue, not from the person."""
        if not self.queued:
            return
        text = "\n\n".join(self.queued)
        self.queued.clear()
        prompt = self.main.prompt
        if not prompt.text:
            prompt.text = text
            self.notify("Queued prompts are back in the prompt box.")
        else:
            self.copy_to_clipboard(text)
            self.notify("Queued prompts were not sent; they are on the clipboard.")

    def action_ctrl_c(self) -> None:
        try:
            prompt = self.main.prompt
        except LookupError:
            self.exit(0)
            return
        if prompt.selected_text:
            self.copy_to_clipboard(prompt.selected_text)
            return
        if prompt.text:
            prompt.clear()
            self._quit_armed = False
            return
        if self._quit_armed:
            self.exit(0)
            return
        if self.turn_running or self._front_busy:
            self.action_cancel_turn()
        self._quit_armed = True
        self.notify("Press Ctrl+C again to quit.", timeout=2)
        self.set_timer(2.0, self._disarm)

    def _disarm(self) -> None:
        self._quit_armed = False

    @on(MainScreen.SignInNeeded)
    def _sign_in_needed(self, event: MainScreen.SignInNeeded) -> None:
        self.controller.sign_in(event.reason)

    @on(MainScreen.AccountRefused)
    def _account_refused(self, event: MainScreen.AccountRefused) -> None:
        from gemtui.tui.refused_flow import offer_alternatives

        offer_alternatives(self, event.reason)

    @on(MainScreen.ModeKeyPressed)
    def _mode_key(self, event: MainScreen.ModeKeyPressed) -> None:
        if event.kind == "yolo":
            self.action_toggle_yolo()
        else:
            self.action_cycle_approval_mode()

    def action_cycle_approval_mode(self) -> None:
        if self.session is None:
            return
        current = self.session.approval_mode
        index = APPROVAL_CYCLE.index(current) + 1 if current in APPROVAL_CYCLE else 0
        target = APPROVAL_CYCLE[index % len(APPROVAL_CYCLE)]
        if target == self._declined_mode:  # said no a moment ago: the next one instead
            target = APPROVAL_CYCLE[(index + 1) % len(APPROVAL_CYCLE)]
        self.request_approval_mode(target)

    def action_toggle_yolo(self) -> None:
        if self.session is None:
            return
        self.request_approval_mode("default" if self.session.approval_mode == "yolo" else "yolo")

    def request_approval_mode(self, mode: str, *, on_purpose: bool = False) -> None:
        """Every change of mode the person asks for passes here.

        A mode that lets calls run unasked (yolo, auto_edit) is confirmed once per session,
        unless the person chose a mode with ``--yolo``/``--approval-mode`` at launch: a
        stray key must never be the only consent. The question answers to its letters at
        once only when a whole command asked for it (``on_purpose``); after a shortcut
        (Ctrl+Y, Shift+Tab) keys typed as text go to the prompt until F8 or a click.
        """
        session = self.session
        if session is None or mode == session.approval_mode:
            return
        asked = (session.id, mode)
        if (
            mode in UNASKED_MODES
            and asked not in self._modes_confirmed
            and self.controller.run_options.approval_mode is None
        ):
            from gemtui.tui.screens.dialogs import ConfirmScreen

            def answered(yes: bool | None) -> None:
                if yes and self.session is session:
                    self._modes_confirmed.add(asked)
                    self.set_approval_mode(mode)
                else:
                    self._declined_mode = mode
                    self.notify(f"Approval mode stays {session.approval_mode}.")

            question, detail = UNASKED_MODES[mode]
            dialog = ConfirmScreen(question, detail=detail, on_purpose=on_purpose)
            self.push_screen(dialog, answered)
            return
        self.set_approval_mode(mode)

    def set_approval_mode(self, mode: str) -> None:
        """Apply a mode (already consented to) and say so where the person looks."""
        assert self.session is not None
        self.session.set_approval_mode(mode)
        self._declined_mode = None
        self.main.status.approval_mode = mode
        note = MODE_NOTES.get(mode, "")
        self.notify(
            f"Approval mode: {mode}. {note}",
            severity="warning" if mode in UNASKED_MODES else "information",
        )

    def action_toggle_pane(self, class_name: str) -> None:
        self.toggle_class(class_name)

    def action_slash(self, line: str) -> None:
        self.run_slash(line)

    def action_copy(self, line: str) -> None:
        """F6/F7 on the main screen; in a dialog's editor they keep their TextArea meaning."""
        from textual.actions import SkipAction

        if not isinstance(self.screen, MainScreen):
            raise SkipAction()
        self.run_slash(line)

    # -- slash commands --------------------------------------------------------------------------
    def run_slash(self, line: str) -> None:
        """Run one slash command line (also what the command palette calls)."""
        from gemtui.tui import slash, slash_custom

        parsed = parse_slash(line)
        if parsed is None:
            return
        name, arg = parsed
        command = slash.BY_NAME.get(name)
        if command is None:
            if slash_custom.custom_command(self, line):
                return
            if not slash.mcp_prompt(self, line.strip().partition(" ")[0], arg):
                self.notify(f"Unknown command {name}. Type /help for the list.", severity="warning")
            return
        try:
            command.handler(self, arg)
        except Exception as exc:
            self.report_error(exc)

    def refresh_custom_commands(self) -> None:
        """The prompt's completer learns the current custom commands."""
        from gemtui.tui.slash_custom import refresh_custom_commands

        refresh_custom_commands(self)

    def help_text(self) -> str:
        from gemtui.tui.help_text import HELP_TEXT
        from gemtui.tui.slash_custom import custom_help

        commands = {**self.slash_commands, **custom_help(self)}
        lines = [f"  {name:<16}{help_text}" for name, help_text in commands.items()]
        return HELP_TEXT + "\n".join(lines)

    # -- errors ----------------------------------------------------------------------------------
    def report_error(self, error: Exception) -> None:
        """An unexpected error in one of our handlers: say so and keep running."""
        if self.raise_errors:
            raise error
        log.exception("unexpected error in the TUI", exc_info=error)
        self.notify(
            f"Something went wrong: {type(error).__name__}: {error}. "
            "The session is kept; details are in the log.",
            severity="error",
            timeout=10,
        )

    def _handle_exception(self, error: Exception) -> None:
        """Last resort (a Textual handler died): exit cleanly, no traceback on screen."""
        if self.raise_errors:
            super()._handle_exception(error)
            return
        log.exception("fatal error in the TUI", exc_info=error)
        self.crash_message = f"{type(error).__name__}: {error}"
        self.exit(return_code=1)
