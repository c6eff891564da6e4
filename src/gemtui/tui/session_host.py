"""The session side of the app: start the engine after the first frame, ask about trust,
open the welcome screen, adopt a built session, resume, switch model, compress.

Every session comes from the assembly (``agent/assembly.py``); this controller only
decides when, and shows the result. The App owns one controller per session (the front
one is ``app.controller``) and adds the keys, prompts, approvals and commands; the
controller reaches the App only through ``ControllerHost``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gemtui.agent.assembly import RunOptions
from gemtui.collector import resume_collector
from gemtui.config.ui_choice import UiChoice
from gemtui.modes import ApprovalMode
from gemtui.tui.after_hand_over import finish_start_up
from gemtui.tui.screens.main import MainScreen
from gemtui.tui.store_opening import hurry_store
from gemtui.tui.ui_first import ui_first
from gemtui.tui.widgets.status_line import git_branch, short_path

if TYPE_CHECKING:
    from textual.screen import Screen

    from gemtui.agent.assembly import Assembled, TrustedRun
    from gemtui.agent.session import Session
    from gemtui.config.settings import Settings
    from gemtui.config.trust import WorkspaceTrust
    from gemtui.store import SessionStore
    from gemtui.tui.controller_host import ControllerHost

__all__ = ["SessionController", "short_path"]

log = logging.getLogger(__name__)


def _sandbox_label(session: Session) -> str:
    """What the status line says of the sandbox (empty when commands are not sandboxed)."""
    return "" if (box := session.sandbox) is None else ("sandbox+net" if box.network else "sandbox")


class SessionController:
    """One session's life in the app, built by the assembly: owned by the App, never
    its base class, so several can live in one app."""

    compressing: bool = False
    """/compress is running: prompts queue until it ends."""
    drafting: bool = False
    """The prompt holds text: a send may come any moment (start-up's rest waits for it)."""
    closing: bool = False
    """The app is ending: start-up's rest makes nothing more."""

    def __init__(
        self,
        app: ControllerHost,
        *,
        settings: Settings | None,
        session: Session | None,
        workspace: Path,
        prompt: str | None = None,
        welcome_reason: str | None = None,
        store: SessionStore | None = None,
        session_factory: Callable[[], Assembled] | None = None,
        trust: WorkspaceTrust | None = None,
        run_options: RunOptions | None = None,
        settings_loader: Callable[[], Settings] | None = None,
    ) -> None:
        self.app = app
        """The app showing this session (Textual's calls go through it)."""
        self.session_factory = session_factory
        """Builds the session after the first frame is drawn, so start-up shows at once."""
        self.run_options = run_options or RunOptions(workspace=workspace)
        """The flags this app was started with; every session it builds uses them."""
        self.store = store
        """Where sessions are saved; None when it could not be opened (or is not open yet)."""
        self.assembled: Assembled | None = None
        """The running session with its store attachment and recorder."""
        self._settings = settings
        self._settings_loader = settings_loader
        """Validates the settings files when first needed (after the first frame)."""
        self.session = session
        """The conversation; None until the welcome screen chose a provider."""
        self.workspace = workspace
        self.initial_prompt = prompt
        self.welcome_reason = welcome_reason
        self.queued: deque[str] = deque()
        """Prompts typed while a turn runs (or the engine starts), sent in order."""
        self.turn_running = False
        self.first_turn_over = threading.Event()  # every turn's end: start-up's rest waits
        self.startup_notice: str | None = None
        """Shown once the app is up (e.g. a flag that is not supported yet)."""
        self.trust = trust
        """The folder's trust decision; asked on screen before the engine starts if open."""

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
        self.app.ui = UiChoice.of(value.ui)

    # -- start -----------------------------------------------------------------------------------
    def _apply_view_settings(self) -> None:
        self.app.set_class(not self.app.ui.show_thoughts, "-hide-thoughts")
        self.app.set_class(not self.app.ui.show_usage, "-hide-usage")

    def app_mounted(self) -> None:
        """The app is mounted: notices, then the engine, the trust question or the welcome."""
        self._apply_view_settings()
        if self.startup_notice:
            self.app.notify(self.startup_notice, severity="warning", timeout=8)
        for failure in self.app.theme_failures:
            self.app.notify(
                f"Theme {failure.path.name} skipped: {failure.message}", severity="warning"
            )
        if self.session is not None:
            self._start_session(self.session)
        elif self.session_factory is not None:  # the default screen is the main one
            if self.trust is not None and self.trust.undecided and self.trust.overrides:
                from gemtui.tui.screens.trust import TrustScreen

                screen = TrustScreen(self.trust.overrides, changes=self.trust.changes)
                self.app.push_screen(screen, self._trust_answered)
            else:
                self._notify_ignored()
                self._build_when_ready = True
        else:
            self._show_welcome(self.welcome_reason)

    _build_when_ready = False

    def default_screen(self) -> Screen[Any] | None:
        """The main screen itself while the engine starts: one screen is composed and
        styled for the first frame, not a blank one first and the main one on top (None:
        Textual's own default)."""
        if self.session is not None or self.session_factory is None:
            return None
        screen = MainScreen(workspace=self.workspace, panes_after_first_frame=True)
        screen.slash_commands = self.app.slash_commands
        screen.status_values = {
            "provider": "starting…",
            "workspace": short_path(self.workspace),
            "branch": git_branch(self.workspace),
        }
        return screen

    def first_frame_drawn(self) -> None:
        """The first frame is on the terminal: only now build the engine. Its imports hold
        the interpreter for a few hundred milliseconds; started earlier (after the first
        layout), they delayed the very frame they were meant to follow."""
        if self._build_when_ready:
            self._build_when_ready = False
            self._build_session_in_background()
        else:  # no engine to build now: start-up is over
            resume_collector()
        try:
            screen = self.app.main
        except LookupError:
            return
        screen.mount_transcript()  # the start-up screen's comes after this frame

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

    def _notify_ignored(self, *, later: bool = False) -> None:
        if self.trust is None or self.trust.ignored is None:
            return
        from gemtui.config.trust import TrustStore

        how = (
            "You will be asked again at the next start."
            if self.trust.changes or later
            else f"To trust it later, remove it from {TrustStore().path} "
            "or start with --trust-workspace."
        )
        notice = self.trust.notice(how)
        if notice is not None:
            self.app.notify(notice, severity="warning", timeout=12)

    def _trust_answered(self, trusted: bool | None) -> None:
        """Remember the answer, apply the folder's settings if trusted, then start."""
        from gemtui.config.trust import TrustStore
        from gemtui.errors import FatalConfigError

        if self.trust is None:  # pragma: no cover - the question is asked only with one
            self._build_session_in_background()
            return
        changed = bool(self.trust.changes)  # "not this time": the old trust stays, asked again
        self.trust = self.trusted_run.answered(bool(trusted)).trust
        try:  # None (Esc, "not now"): ignored this run, nothing remembered
            if trusted is not None and (trusted or not changed):  # covers what was shown
                TrustStore().remember(self.workspace, bool(trusted), dict(self.trust.content))
        except (OSError, FatalConfigError) as exc:
            self.app.notify(f"Could not remember the answer: {exc}", severity="warning")
        if trusted:
            try:
                self.settings = self.trusted_run.settings()
            except FatalConfigError as exc:
                self.app.exit_message = exc.message
                self.app.exit(return_code=exc.exit_code)
                return
            self._apply_view_settings()
            if self.app.ui.theme in self.app.available_themes:
                self.app.theme = self.app.ui.theme
        else:
            self._notify_ignored(later=trusted is None)
        self._build_session_in_background()

    def _show_welcome(self, reason: str | None, *, back: bool = False) -> None:
        from gemtui.tui.screens.welcome import WelcomeScreen

        welcome = WelcomeScreen(reason=reason, build=self.build_for_choice, back=back)
        self.app.push_screen(welcome, self._welcome_done)

    def choose_provider(self, reason: str | None = None) -> None:
        """The welcome screen over a running session (the demo's end), saying ``reason``
        why; Esc goes back."""
        self._show_welcome(reason, back=True)

    def _build_session_in_background(self) -> None:
        """Build the engine in a thread after the first frame; a prompt sent meanwhile queues."""
        factory = self.session_factory
        if factory is None:
            return

        def build() -> None:
            """Builds and hands the result over; app state is only written on the UI thread."""
            try:
                with ui_first():  # a key typed meanwhile does not wait for this thread
                    result: Assembled | Exception = factory()
            except Exception as exc:  # handed to the UI thread, which decides
                result = exc
            # awaited there, so the worker ends only once the session is handed over
            self.app.call_from_thread(self._session_built, result)
            if isinstance(result, Exception):
                return
            finish_start_up(result, self, lambda: self._store_opened(result))

        self.app.run_worker(build, thread=True, name="engine-start", group="engine-start")

    def _store_opened(self, built: Assembled) -> None:
        with contextlib.suppress(RuntimeError):  # the app ended first: flushed on exit
            self.app.call_from_thread(built.attachment.opened)

    async def _session_built(self, result: Assembled | Exception) -> None:
        from gemtui.errors import FatalAuthenticationError, FatalError

        if not isinstance(result, Exception):  # git status runs while the panes mount
            result.session.prepare()
        if isinstance(result, Exception) or result.session.history or not self._prompt_waits():
            with contextlib.suppress(LookupError):  # else after that prompt's turn started
                await self.app.main.panes_ready()
        resume_collector()  # start-up is over (gemtui.collector)
        self.session_factory = None
        if self.startup_notice:  # set while the engine started (e.g. the store is broken)
            self.app.notify(self.startup_notice, severity="warning", timeout=8)
            self.startup_notice = None
        if isinstance(result, Exception) and not isinstance(result, FatalError):
            log.error("the engine could not start", exc_info=result)
            self.app.exit_message = f"the engine could not start: {type(result).__name__}: {result}"
            self.app.exit(return_code=1)
            return
        try:
            if isinstance(result, Exception):
                raise result
            built = result
        except FatalAuthenticationError as exc:
            self.welcome_reason = exc.message
            self._show_welcome(exc.message)
        except FatalError as exc:
            self.app.exit_message = exc.message
            self.app.exit(return_code=exc.exit_code)
        else:
            self._adopt(built)

    def _prompt_waits(self) -> bool:
        """The first thing typed while the engine started is for the model (not a command)."""
        from gemtui.tui.slash_line import parse_slash

        first = self.initial_prompt or (self.queued[0] if self.queued else None)
        return first is not None and parse_slash(first) is None

    def _adopt(self, built: Assembled) -> None:
        """Make ``built`` the running session, saved into its store."""
        self.assembled = built
        built.attachment.when_open(lambda: setattr(self, "store", built.store))
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
        from gemtui.agent.budget_attach import ask_at_caps
        from gemtui.agent.fallback_attach import attach_fallback
        from gemtui.tui.bridge import pump_events
        from gemtui.tui.fallback_flow import fallback_question
        from gemtui.tui.session_pump import pump_when_panes, show_price

        self.session = session
        attach_fallback(session, fallback_question(self.app))  # the TUI always asks
        ask_at_caps(session)  # this screen answers at a cap: the prompt waits, never exits 54
        status = {
            "provider": session.provider.name,
            "model": session.model,
            "approval_mode": session.approval_mode,
            "sandbox": _sandbox_label(session),
            "workspace": short_path(self.workspace),
            "branch": git_branch(self.workspace),
        }
        choices = {
            "/theme": sorted(self.app.available_themes),
            "/approval-mode": [str(m) for m in ApprovalMode],
            "/copy": ["code"],
        }
        try:
            screen = self.app.main  # the screen drawn while the engine started
        except LookupError:
            screen = MainScreen(
                workspace=self.workspace,
                context_window=session.context_window,
            )
            screen.status_values = status
            screen.slash_commands = self.app.slash_commands
            screen.argument_choices = choices
            self.app.push_screen(screen)
        else:
            for field, value in status.items():
                setattr(screen.status, field, value)
            screen.prompt.argument_choices = choices
            screen.set_context_window(session.context_window)
        subscription = session.bus.subscription(512)  # now: the session may emit at once
        if screen.is_mounted:  # the start-up screen: its panes after a waiting prompt's turn
            pump = pump_when_panes(screen, session, subscription)
        else:  # pushed just now, with its panes
            screen.call_after_refresh(show_price, screen, session)
            pump = pump_events(session.bus, screen, subscription=subscription)
        if self.assembled is not None and self.assembled.session is session:
            self.assembled.record()
        elif self.store is not None:  # a session handed in ready-made (tests, bench)
            from gemtui.agent.assembly import Assembled
            from gemtui.agent.store_attachment import StoreAttachment

            self.assembled = Assembled(session, StoreAttachment(self.store))
            self.assembled.record()
        if session.history:  # its panes are mounted by now (``_session_built``)
            from gemtui.tui.resumed_view import show_resumed

            if screen.is_mounted:  # the screen drawn while the engine started: show it now
                show_resumed(screen, session, self.store)
            else:
                self.app.call_after_refresh(show_resumed, screen, session, self.store)
        if screen.is_mounted:  # a prompt typed while the engine started goes now
            self._after_start()
        else:
            self.app.call_after_refresh(self._after_start)
        if self.session is not session:  # that prompt replaced it (``gemtui "/new"``):
            subscription.close()  # the new session's bridge runs; this one never starts
            pump.close()
            return
        # after the turn's worker: its first steps run before the panes' mount
        self.app.run_worker(pump, name="bridge", group="bridge", exclusive=True)
        self.app.call_after_refresh(self.app.refresh_custom_commands)

    @property
    def resume_hint(self) -> str | None:
        """How to come back to this session after quitting (None when nothing was saved)."""
        session, store = self.session, self.store
        if session is None or store is None or not session.history:
            return None
        try:
            saved = store.get(session.id) is not None
        except Exception:  # the store may be gone by now: no hint beats a wrong one
            saved = False
        return f"To continue this session: gemtui --resume {session.id}" if saved else None

    def close_store(self) -> None:
        """Persist what is left of the session and close the store (on exit)."""
        if self.assembled is not None:
            self.assembled.stop_recording()
        if self.store is not None:
            self.store.close()
            self.store = None

    def resume_session(self, session_id: str) -> None:
        """Replace the conversation on screen with a saved one, same provider (the sessions
        screen has closed: the prompt and its history stay; the transcript is redrawn)."""
        if self.store is None or self.session is None:
            return
        if self.turn_running:
            self.app.notify("Wait for the turn to finish before opening another session.")
            return
        built = self._replace_session(session_id, "Cannot open that session")
        if built is not None:
            count = len(built.session.history)
            self.app.notify(f"Resumed {built.session.id[:8]} ({count} messages).")

    def new_session(self) -> None:
        """``/new``: a fresh conversation, same provider, model and mode; the last stays saved."""
        if self.session is None:
            return
        if self.turn_running:
            self.app.notify("Wait for the turn to finish (or Esc) before starting anew.")
            return
        if hurry_store(self) and self.assembled is not None:  # one store: anew once open
            self.assembled.attachment.when_open(self.new_session)
            return
        if self._replace_session(None, "Cannot start a new conversation") is not None:
            self.app.notify("A new conversation; the last one is saved (/sessions).")

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
            self.app.notify(f"{failure}: {exc}", severity="error")
            return None
        if self.assembled is not None:
            self.assembled.stop_recording()  # the store stays open for the next one
        old.close_background()  # its background commands belong to it, not to the next one
        old.stop_preparing()  # its groundwork too: the provider is shared with the next one
        self.app.main.transcript.clear()
        self.app.main.thoughts.clear()
        self.app.main.usage.reset()  # a resumed session's own usage comes back with it
        self._adopt(built)
        return built

    def _after_start(self) -> None:
        assert self.session is not None
        start = getattr(self.app, "start_front_session", None)  # the App's fleet, if any
        if start is None:
            self.session.start()
        else:  # a prompt that waits leaves before the fleet starts
            start(bool(self.initial_prompt or self.queued))
        if self.initial_prompt:
            prompt, self.initial_prompt = self.initial_prompt, None
            self.app.submit(prompt)
        if self.queued and not self.turn_running:
            self.app.send_next()  # prompts typed while the engine was starting

    def _welcome_done(self, built: Assembled | None) -> None:
        if built is None and self.session is not None:
            return  # back to the conversation it was opened from
        if built is None:
            self.app.exit(0)
        else:
            self._adopt(built)

    def compress(self) -> None:
        """/compress, in the app's exclusive ``compress`` worker."""
        self.app.run_worker(
            self._compress(), exclusive=True, group="compress", name="compress", exit_on_error=False
        )

    async def _compress(self) -> None:
        """/compress: prompts typed meanwhile wait in the queue (sent on the summary,
        never lost under it), and the status line says what runs."""
        assert self.session is not None
        self.compressing = True
        status = self.app.main.status
        status.compression_started()
        try:
            await self.session.compress()
        except Exception as exc:
            log.exception("compression failed")
            self.app.notify(f"Compression failed: {exc}", severity="error")
        finally:
            self.compressing = False
            status.turn_ended()
            if self.queued:
                self.app.call_later(self.app.send_next)
        # done: the transcript's "History compressed: N → M tokens." says so, once

    def sign_in(self, reason: str = "") -> None:
        """The Google sign-in dialog; once signed in the session goes on over code-assist."""
        from gemtui.tui.screens.sign_in import SignInScreen

        def done(email: str | None) -> None:
            if email is None:
                return
            self.app.notify(f"Signed in as {email or 'your Google account'}.")
            if self.session is not None:
                self.use_google_account()

        self.app.push_screen(SignInScreen(reason), done)

    def use_google_account(self) -> None:
        """Go on over code-assist, in the app's exclusive ``model`` worker."""
        self.app.run_worker(
            self._use_google_account(),
            exclusive=True,
            group="model",
            name="google-account",
            exit_on_error=False,
        )

    async def _use_google_account(self) -> None:
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
            self.app.notify(f"Cannot use the Google account: {exc.message}", severity="error")
            return
        self.session.account.refresh_soon()  # the status line follows ModelChanged

    def switch_model(self, provider_name: str, model: str) -> None:
        """Switch model, in the app's exclusive ``model`` worker."""
        self.app.run_worker(
            self._switch_model(provider_name, model),
            exclusive=True,
            group="model",
            name="switch-model",
            exit_on_error=False,
        )

    async def _switch_model(self, provider_name: str, model: str) -> None:
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
            self.app.notify(
                f"Cannot switch to {provider_name}:{model}: {exc.message}", severity="error"
            )
            return
        self.session.account.refresh_soon()  # the status line follows ModelChanged
        self.app.notify(f"The next turn uses {self.session.provider.name}:{model}.")
