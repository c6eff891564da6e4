"""The session side of the app: start the engine after the first frame, ask about trust,
open the welcome screen, adopt a built session, resume, switch model, compress.

Every session comes from the assembly (``agent/assembly.py``); this host only decides
when, and shows the result. ``GemtuiApp`` adds the keys, prompts, approvals and
commands on top.
"""

from __future__ import annotations

import contextlib
import logging
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from gemtui.agent.assembly import RunOptions
from gemtui.collector import resume_collector
from gemtui.config.ui_choice import UiChoice
from gemtui.modes import ApprovalMode
from gemtui.tui.masking_app import MaskingApp
from gemtui.tui.screens.main import MainScreen
from gemtui.tui.widgets.status_line import git_branch

if TYPE_CHECKING:
    from textual.screen import Screen

    from gemtui.agent.assembly import Assembled, TrustedRun
    from gemtui.agent.session import Session
    from gemtui.config.settings import Settings
    from gemtui.config.trust import WorkspaceTrust
    from gemtui.store import SessionStore
    from gemtui.tui.themes import ThemeFailure

__all__ = ["SessionHost", "short_path"]

log = logging.getLogger(__name__)


def _sandbox_label(session: Session) -> str:
    """What the status line says of the sandbox (empty when commands are not sandboxed)."""
    box = session.sandbox
    return "" if box is None else ("sandbox+net" if box.network else "sandbox")


class SessionHost(MaskingApp[int]):
    """An app that holds one session at a time, built by the assembly."""

    _settings: Settings | None
    _settings_loader: Callable[[], Settings] | None
    ui: UiChoice
    session: Session | None
    session_factory: Callable[[], Assembled] | None
    """Builds the session after the first frame is drawn, so start-up shows at once."""
    run_options: RunOptions
    """The flags this app was started with; every session it builds uses them."""
    store: SessionStore | None
    """Where sessions are saved; None when it could not be opened (or is not open yet)."""
    assembled: Assembled | None
    """The running session with its store attachment and recorder."""
    workspace: Path
    trust: WorkspaceTrust | None
    """The folder's trust decision; asked on screen before the engine starts if open."""
    initial_prompt: str | None
    welcome_reason: str | None
    exit_message: str | None
    """Why the app stopped before it could start (printed by launch)."""
    startup_notice: str | None
    """Shown once the app is up (e.g. a flag that is not supported yet)."""
    theme_failures: list[ThemeFailure]
    queued: deque[str]
    """Prompts typed while a turn runs (or the engine starts), sent in order."""
    turn_running: bool
    compressing: bool = False
    """/compress is running: prompts queue until it ends."""
    slash_commands: dict[str, str]
    """Every slash command with its help (the app's table), for the prompt's completion."""

    def submit(self, text: str) -> None:
        """Send a prompt (the app's prompt handling)."""
        raise NotImplementedError

    def run_slash(self, line: str) -> None:
        """Run one slash command line (the app's command handling)."""
        raise NotImplementedError

    def send_prompt(self, text: str) -> None:
        """Send ``text`` as typed, never as a built-in command (the app's prompt handling)."""
        raise NotImplementedError

    def refresh_custom_commands(self) -> None:
        """Tell the prompt's completer the custom commands and workspace roots."""
        raise NotImplementedError

    def help_text(self) -> str:
        """The keys and commands, as /help shows them."""
        raise NotImplementedError

    def request_approval_mode(self, mode: str, *, on_purpose: bool = False) -> None:
        """Change the approval mode as the person asked (confirmed where it loosens;
        ``on_purpose``: a whole command asked, so the question's letters act at once)."""
        raise NotImplementedError

    def _send_next(self) -> None:
        raise NotImplementedError

    @property
    def main(self) -> MainScreen:
        raise NotImplementedError

    @property
    def settings(self) -> Settings:
        """Every setting, validated on first use (the engine build, after the first frame);
        a bad one raises ``FatalConfigError`` there (exit 52)."""
        if self._settings is None:
            if self._settings_loader is None:
                from gemtui.config.settings import Settings

                self._settings = Settings()
            else:
                self._settings = self._settings_loader()
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._settings = value
        self.ui = UiChoice.of(value.ui)

    # -- start -----------------------------------------------------------------------------------
    def _apply_view_settings(self) -> None:
        self.set_class(not self.ui.show_thoughts, "-hide-thoughts")
        self.set_class(not self.ui.show_usage, "-hide-usage")

    def on_mount(self) -> None:
        self._apply_view_settings()
        if self.startup_notice:
            self.notify(self.startup_notice, severity="warning", timeout=8)
        for failure in self.theme_failures:
            self.notify(f"Theme {failure.path.name} skipped: {failure.message}", severity="warning")
        if self.session is not None:
            self._start_session(self.session)
        elif self.session_factory is not None:  # the default screen is the main one
            if self.trust is not None and self.trust.undecided and self.trust.overrides:
                from gemtui.tui.screens.trust import TrustScreen

                screen = TrustScreen(self.trust.overrides, changes=self.trust.changes)
                self.push_screen(screen, self._trust_answered)
            else:
                self._notify_ignored()
                self._build_when_ready = True
        else:
            self._show_welcome(self.welcome_reason)

    _build_when_ready = False

    def get_default_screen(self) -> Screen[Any]:
        """The main screen itself while the engine starts: one screen is composed and
        styled for the first frame, not a blank one first and the main one on top."""
        if self.session is not None or self.session_factory is None:
            return super().get_default_screen()
        screen = MainScreen(workspace=self.workspace, panes_after_first_frame=True)
        screen.slash_commands = self.slash_commands
        screen.status_values = {
            "provider": "starting…",
            "workspace": short_path(self.workspace),
            "branch": git_branch(self.workspace),
        }
        return screen

    def on_ready(self) -> None:
        """The first frame is on the terminal: only now build the engine. Its imports hold
        the interpreter for a few hundred milliseconds; started earlier (after the first
        layout), they delayed the very frame they were meant to follow."""
        if self._build_when_ready:
            self._build_when_ready = False
            self._build_session_in_background()
        else:  # no engine to build now: start-up is over
            resume_collector()

    @property
    def workspace_trusted(self) -> bool:
        """Whether this folder's own .gemtui/ settings and policy apply."""
        return self.trust is not None and self.trust.trusted

    @property
    def trusted_run(self) -> TrustedRun:
        """This app's flags with the folder's trust as it stands (asked or not)."""
        from gemtui.agent.assembly import TrustedRun
        from gemtui.config.trust import WorkspaceTrust

        return TrustedRun(self.run_options, self.trust or WorkspaceTrust(False, None, False))

    def _notify_ignored(self) -> None:
        if self.trust is None or self.trust.ignored is None:
            return
        from gemtui.config.trust import TrustStore

        how = (
            "You will be asked again at the next start."
            if self.trust.changes
            else f"To trust it later, remove it from {TrustStore().path} "
            "or start with --trust-workspace."
        )
        notice = self.trust.notice(how)
        if notice is not None:
            self.notify(notice, severity="warning", timeout=12)

    def _trust_answered(self, trusted: bool | None) -> None:
        """Remember the answer, apply the folder's settings if trusted, then start."""
        from gemtui.config.trust import TrustStore
        from gemtui.errors import FatalConfigError

        if self.trust is None:  # pragma: no cover - the question is asked only with one
            self._build_session_in_background()
            return
        changed = bool(self.trust.changes)  # "not this time": the old trust stays, asked again
        self.trust = self.trusted_run.answered(bool(trusted)).trust
        try:
            if trusted or not changed:  # a trust covers exactly the content that was shown
                TrustStore().remember(self.workspace, bool(trusted), dict(self.trust.content))
        except (OSError, FatalConfigError) as exc:
            self.notify(f"Could not remember the answer: {exc}", severity="warning")
        if trusted:
            try:
                self.settings = self.trusted_run.settings()
            except FatalConfigError as exc:
                self.exit_message = exc.message
                self.exit(return_code=exc.exit_code)
                return
            self._apply_view_settings()
            if self.ui.theme in self.available_themes:
                self.theme = self.ui.theme
        else:
            self._notify_ignored()
        self._build_session_in_background()

    def _show_welcome(self, reason: str | None) -> None:
        from gemtui.tui.screens.welcome import WelcomeScreen

        welcome = WelcomeScreen(reason=reason, build=self.build_for_choice)
        self.push_screen(welcome, self._welcome_done)

    def _build_session_in_background(self) -> None:
        """Import and build the engine in a thread once the prompt is on screen.

        Keys typed meanwhile are handled by the UI; a prompt sent meanwhile is queued.
        """
        factory = self.session_factory
        if factory is None:
            return

        def build() -> None:
            """Builds and hands the result over; app state is only written on the UI thread."""
            try:
                result: Assembled | Exception = factory()
            except Exception as exc:  # handed to the UI thread, which decides
                result = exc
            # awaited there, so the worker ends only once the session is handed over (mypy
            # cannot solve Textual's ``T | Awaitable[T]`` for a coroutine function)
            self.call_from_thread(self._session_built, result)  # type: ignore[arg-type]

        self.run_worker(build, thread=True, name="engine-start", group="engine-start")

    async def _session_built(self, result: Assembled | Exception) -> None:
        from gemtui.errors import FatalAuthenticationError, FatalError

        with contextlib.suppress(LookupError):  # its panes first: the session fills them
            await self.main.panes_ready()
        resume_collector()  # start-up is over (gemtui.collector)
        self.session_factory = None
        if self.startup_notice:  # set while the engine started (e.g. the store is broken)
            self.notify(self.startup_notice, severity="warning", timeout=8)
            self.startup_notice = None
        if isinstance(result, Exception) and not isinstance(result, FatalError):
            log.error("the engine could not start", exc_info=result)
            self.exit_message = f"the engine could not start: {type(result).__name__}: {result}"
            self.exit(return_code=1)
            return
        try:
            if isinstance(result, Exception):
                raise result
            built = result
        except FatalAuthenticationError as exc:
            self.welcome_reason = exc.message
            self._show_welcome(exc.message)
        except FatalError as exc:
            self.exit_message = exc.message
            self.exit(return_code=exc.exit_code)
        else:
            self._adopt(built)

    def _adopt(self, built: Assembled) -> None:
        """Make ``built`` the running session, saved into its store."""
        self.assembled = built
        self.store = built.store
        self._start_session(built.session)

    def build_for_choice(self, provider: str | None, fake_responses: str | None) -> Assembled:
        """The session for the welcome screen's choice, with every flag of this run kept
        (model, approval mode, resume…); raises ``FatalError`` when it cannot be used."""
        from dataclasses import replace

        options = self.run_options.with_choice(provider, fake_responses)
        run = replace(self.trusted_run, options=options)
        settings = run.settings()
        built = run.build(settings)
        self.settings, self.run_options = settings, options
        return built

    def _start_session(self, session: Session) -> None:
        from gemtui.tui.bridge import pump_events

        self.session = session
        status = {
            "provider": session.provider.name,
            "model": session.model,
            "approval_mode": session.approval_mode,
            "sandbox": _sandbox_label(session),
            "workspace": short_path(self.workspace),
            "branch": git_branch(self.workspace),
        }
        choices = {
            "/theme": sorted(self.available_themes),
            "/approval-mode": [str(m) for m in ApprovalMode],
            "/copy": ["code"],
        }
        try:
            screen = self.main  # the screen drawn while the engine started
        except LookupError:
            screen = MainScreen(
                workspace=self.workspace,
                context_window=session.context_window,
            )
            screen.status_values = status
            screen.slash_commands = self.slash_commands
            screen.argument_choices = choices
            self.push_screen(screen)
        else:
            for field, value in status.items():
                setattr(screen.status, field, value)
            screen.prompt.argument_choices = choices
            screen.usage.context_window = session.context_window
        screen.call_after_refresh(self._show_price, screen, session)
        self.run_worker(
            pump_events(session.bus, screen), name="bridge", group="bridge", exclusive=True
        )
        if self.assembled is not None and self.assembled.session is session:
            self.assembled.record()
        elif self.store is not None:  # a session handed in ready-made (tests, bench)
            from gemtui.agent.assembly import Assembled
            from gemtui.agent.store_attachment import StoreAttachment

            self.assembled = Assembled(session, StoreAttachment(self.store))
            self.assembled.record()
        if session.history:
            if screen.is_mounted:  # the screen drawn while the engine started: show it now
                self._show_resumed(screen, session)
            else:
                self.call_after_refresh(self._show_resumed, screen, session)
        self.call_after_refresh(self._after_start)
        self.call_after_refresh(self.refresh_custom_commands)

    def _show_resumed(self, screen: MainScreen, session: Session) -> None:
        from gemtui.tui.resumed_view import show_resumed

        show_resumed(screen, session, self.store)

    @property
    def resume_hint(self) -> str | None:
        """How to come back to this session after quitting (None when nothing was saved)."""
        session = self.session
        store = self.store
        if session is None or store is None or not session.history:
            return None
        try:
            if store.get(session.id) is None:
                return None
        except Exception:  # the store may be gone by now: no hint beats a wrong one
            return None
        return f"To continue this session: gemtui --resume {session.id}"

    def close_store(self) -> None:
        """Persist what is left of the session and close the store (on exit)."""
        if self.assembled is not None:
            self.assembled.stop_recording()
        if self.store is not None:
            self.store.close()
            self.store = None

    def resume_session(self, session_id: str) -> None:
        """Replace the conversation on screen with a saved one, same provider.

        Called once the sessions screen has closed: the main screen, its prompt and its
        prompt history stay; only the transcript is redrawn from the saved history.
        """
        if self.store is None or self.session is None:
            return
        if self.turn_running:
            self.notify("Wait for the turn to finish before opening another session.")
            return
        built = self._replace_session(session_id, "Cannot open that session")
        if built is not None:
            count = len(built.session.history)
            self.notify(f"Resumed {built.session.id[:8]} ({count} messages).")

    def new_session(self) -> None:
        """``/new``: a fresh conversation with the same provider, model and mode; the
        current one stays saved (``/sessions`` or ``--resume`` brings it back)."""
        if self.session is None:
            return
        if self.turn_running:
            self.notify("Wait for the turn to finish (or Esc) before starting anew.")
            return
        if self._replace_session(None, "Cannot start a new conversation") is not None:
            self.notify("A new conversation; the last one is saved (/sessions).")

    def _replace_session(self, resume: str | None, failure: str) -> Assembled | None:
        """The running session replaced by a saved one (``resume``) or a fresh one, same
        provider, model and mode; the old one stops recording and its commands end."""
        from dataclasses import replace

        from gemtui.agent.assembly import build_session
        from gemtui.agent.store_attachment import attach_store

        old = self.session
        assert old is not None
        options = replace(
            self.run_options,
            resume=resume,
            model=old.model if resume is None else self.run_options.model,
            approval_mode=old.approval_mode,
        )
        try:
            attachment = attach_store(resume, self.workspace, store=self.store)
            built = build_session(
                old.settings,
                options,
                trusted=self.workspace_trusted,
                provider=old.provider,
                attachment=attachment,
            )
        except Exception as exc:
            self.notify(f"{failure}: {exc}", severity="error")
            return None
        if self.assembled is not None:
            self.assembled.stop_recording()  # the store stays open for the next one
        old.close_background()  # its background commands belong to it, not to the next one
        old.stop_preparing()  # its groundwork too: the provider is shared with the next one
        self.main.transcript.clear()
        self.main.thoughts.clear()
        self.main.usage.reset()  # a resumed session's own usage comes back with it
        self._adopt(built)
        return built

    def start_front_session(self) -> None:
        """Say the session began (the app follows it in a fleet of agents first)."""
        assert self.session is not None
        self.session.start()

    async def on_unmount(self) -> None:
        """The app ends: background agents stop and their sessions close while the event
        loop still runs (the front one is closed by the launcher, as before)."""
        desk = getattr(self, "desk", None)  # ``GemtuiApp.desk``
        if desk is not None:
            await desk.aclose()

    def _after_start(self) -> None:
        assert self.session is not None
        self.start_front_session()
        if self.initial_prompt:
            prompt, self.initial_prompt = self.initial_prompt, None
            self.submit(prompt)
        if self.queued and not self.turn_running:
            self._send_next()  # prompts typed while the engine was starting

    def _welcome_done(self, built: Assembled | None) -> None:
        if built is None:
            self.exit(0)
        else:
            self._adopt(built)

    @work(exclusive=True, group="compress", name="compress", exit_on_error=False)
    async def compress(self) -> None:
        """/compress: prompts typed meanwhile wait in the queue (sent on the summary,
        never lost under it), and the status line says what runs."""
        assert self.session is not None
        self.compressing = True
        status = self.main.status
        status.compression_started()
        try:
            await self.session.compress()
        except Exception as exc:
            log.exception("compression failed")
            self.notify(f"Compression failed: {exc}", severity="error")
        finally:
            self.compressing = False
            status.turn_ended()
            if self.queued:
                self.call_later(self._send_next)
        # done: the transcript's "History compressed: N → M tokens." says so, once

    def sign_in(self, reason: str = "") -> None:
        """The Google sign-in dialog; once signed in the session goes on over code-assist."""
        from gemtui.tui.screens.sign_in import SignInScreen

        def done(email: str | None) -> None:
            if email is None:
                return
            self.notify(f"Signed in as {email or 'your Google account'}.")
            if self.session is not None:
                self.use_google_account()

        self.push_screen(SignInScreen(reason), done)

    @work(exclusive=True, group="model", name="google-account", exit_on_error=False)
    async def use_google_account(self) -> None:
        """Switch to code-assist with the fresh tokens (a new provider even if it is one
        already: the old one holds the refused ones), keeping the conversation."""
        from gemtui.agent.provider_choice import DEFAULT_MODELS, resolve_provider
        from gemtui.errors import FatalError

        assert self.session is not None
        current = self.session.model
        model = current if "gemini" in current else DEFAULT_MODELS["code-assist"]
        try:
            resolved = resolve_provider(self.settings, provider="code-assist", model=model)
            await self.session.switch_model(model, resolved)
        except FatalError as exc:
            self.notify(f"Cannot use the Google account: {exc.message}", severity="error")
            return
        self.session.account.refresh_soon()  # the status line follows ModelChanged

    @staticmethod
    def _show_price(screen: MainScreen, session: Session) -> None:
        from gemtui.agent.prices import price_for

        known = price_for(session.model, session.provider.settings.prices) is not None
        screen.usage.expect_price(known)

    @work(exclusive=True, group="model", name="switch-model", exit_on_error=False)
    async def switch_model(self, provider_name: str, model: str) -> None:
        """Switch model (and provider when it differs), keeping the conversation."""
        from gemtui.agent.provider_choice import resolve_provider
        from gemtui.errors import FatalError

        assert self.session is not None
        try:
            resolved = None
            if provider_name != self.session.provider.name:
                resolved = resolve_provider(self.settings, provider=provider_name, model=model)
            await self.session.switch_model(model, resolved)
        except FatalError as exc:
            self.notify(
                f"Cannot switch to {provider_name}:{model}: {exc.message}", severity="error"
            )
            return
        self.session.account.refresh_soon()  # the status line follows ModelChanged
        self.notify(f"The next turn uses {self.session.provider.name}:{model}.")


def short_path(path: Path) -> str:
    """``~/…`` for a folder under the home directory."""
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)
