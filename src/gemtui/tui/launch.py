"""``launch_tui``: what ``gemtui`` (without ``-p``) runs. Textual is imported only here."""

from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.assembly import Assembled, RunOptions
    from gemtui.config.settings import Settings
    from gemtui.config.trust import WorkspaceTrust
    from gemtui.config.ui_choice import UiChoice
    from gemtui.errors import FatalError
    from gemtui.tui.app import GemtuiApp
    from gemtui.tui.fleet_adapter import WorktreeOpener

__all__ = ["build_app", "launch_tui"]


def launch_tui(options: RunOptions, *, open_worktree: WorktreeOpener | None = None) -> int:
    """Open the app for the CLI's ``options`` and return its exit code (52 for broken
    settings). Without a configured provider the welcome screen opens instead of failing.
    """
    from gemtui.agent.assembly import trusted_run
    from gemtui.config.ui_choice import read_ui_choice
    from gemtui.errors import FatalConfigError, FatalError
    from gemtui.logs import setup_logging

    setup_logging()

    try:  # TOML syntax is checked now; the values with the engine, after the first frame
        run = trusted_run(options)  # an undecided folder is asked before the engine starts
        ui = read_ui_choice(options.workspace, trusted=run.trusted)
    except FatalConfigError as exc:
        sys.stderr.write(f"gemtui: {exc.message}\n")
        return exc.exit_code
    app = build_app(None, options, ui=ui, trust=run.trust, open_worktree=open_worktree)
    if isinstance(app, FatalError):
        sys.stderr.write(f"gemtui: {app.message}\n")
        return app.exit_code
    hint: str | None = None
    # what is loaded by now (Textual, the app) lives as long as the process: frozen, the
    # collections run while the engine loads in its thread stop rescanning it
    gc.freeze()
    try:
        app.run()
    finally:
        if app.session is not None:
            app.session.close_background()
        hint = app.controller.resume_hint  # while the store is open: only a saved session has one
        app.close_store()
    if app.exit_message:
        sys.stderr.write(f"gemtui: {app.exit_message}\n")
    elif hint and not app.crash_message:
        sys.stderr.write(f"gemtui: {hint}\n")
    if app.crash_message:
        from gemtui.config.paths import log_dir

        sys.stderr.write(
            f"gemtui: stopped on an unexpected error ({app.crash_message}). "
            f"Please report it; logs are in {log_dir()}.\n"
        )
    return int(app.return_code or 0)


def build_app(
    settings: Settings | None,
    options: RunOptions,
    *,
    ui: UiChoice | None = None,
    trust: WorkspaceTrust | None = None,
    open_worktree: WorktreeOpener | None = None,
) -> GemtuiApp | FatalError:
    """The app for these options (the engine and the store start after its first frame).

    ``settings`` None: validated from the files when the engine is built (after the
    first frame), ``ui`` being what the frame needs. ``options.resume`` (an id, a prefix
    or ``latest``) starts the session from its saved history; an unknown one stops the
    app with exit 42. A store that cannot be opened costs the recording, never the app.
    ``trust`` is the folder's trust decision (None: not trusted): when still open, the
    app asks before the engine starts, and the session uses the settings it ends with.
    """
    from gemtui.tui.app import GemtuiApp

    if options.screen_reader:  # the flag wins over the settings' [ui.accessibility]
        from dataclasses import replace

        from gemtui.config.ui_choice import UiChoice

        chosen = UiChoice.of(settings.ui) if settings is not None else UiChoice()
        ui = replace(ui or chosen, screen_reader=True)

    def make_session() -> Assembled:
        """Runs in a thread after the first frame and only reads the app: the result is
        handed to the UI thread. FatalAuthenticationError opens the welcome screen, any
        other FatalError stops the app with its exit code."""
        from gemtui.providers.tls_prefetch import forget_prefetched_tls, prefetch_tls

        prefetch_tls()  # the CA bundle is read on another core while the engine loads
        try:
            return app.controller.trusted_run.build(app.controller.settings, at_screen=True)
        finally:
            forget_prefetched_tls()  # taken by the provider's client, or left for none

    def load() -> Settings:
        """Validated when first needed: by the engine build, in its thread."""
        return app.controller.trusted_run.settings()

    app = GemtuiApp(
        settings=settings,
        settings_loader=load,
        ui=ui,
        session=None,
        workspace=options.workspace,
        prompt=options.prompt,
        session_factory=make_session,
        trust=trust,
        run_options=options,
    )
    app.open_worktree = open_worktree  # the agent view's "in a new worktree" (-w's)
    return app
