"""``launch_tui``: what ``gemtui`` (without ``-p``) runs. Textual is imported only here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.session import Session
    from gemtui.config.settings import Settings
    from gemtui.errors import FatalError
    from gemtui.tui.app import GemtuiApp

__all__ = ["build_app", "launch_tui"]


def launch_tui(
    *,
    workspace: Path,
    prompt: str | None = None,
    model: str | None = None,
    provider: str | None = None,
    approval_mode: str | None = None,
    fake_responses: str | None = None,
    resume: str | None = None,
) -> int:
    """Open the app and return its exit code (52 for broken settings).

    Without a configured provider the welcome screen opens instead of failing.
    """
    from gemtui.config.settings import load_settings
    from gemtui.errors import FatalConfigError, FatalError
    from gemtui.logs import setup_logging

    setup_logging()

    try:
        settings = load_settings(workspace)
    except FatalConfigError as exc:
        sys.stderr.write(f"gemtui: {exc.message}\n")
        return exc.exit_code
    app = build_app(
        settings,
        workspace=workspace,
        prompt=prompt,
        model=model,
        provider=provider,
        approval_mode=approval_mode,
        fake_responses=fake_responses,
        resume=resume,
    )
    if isinstance(app, FatalError):
        sys.stderr.write(f"gemtui: {app.message}\n")
        return app.exit_code
    try:
        app.run()
    finally:
        app.close_store()
    if app.exit_message:
        sys.stderr.write(f"gemtui: {app.exit_message}\n")
    if app.crash_message:
        from gemtui.config.paths import log_dir

        sys.stderr.write(
            f"gemtui: stopped on an unexpected error ({app.crash_message}). "
            f"Please report it; logs are in {log_dir()}.\n"
        )
    return int(app.return_code or 0)


def build_app(
    settings: Settings,
    *,
    workspace: Path,
    prompt: str | None = None,
    model: str | None = None,
    provider: str | None = None,
    approval_mode: str | None = None,
    fake_responses: str | None = None,
    resume: str | None = None,
) -> GemtuiApp | FatalError:
    """The app for these options (the engine and the store start after its first frame).

    ``resume`` (an id, a prefix or ``latest``) starts the session from its saved history;
    an unknown one stops the app with exit 42. A store that cannot be opened costs the
    recording, never the app.
    """
    from gemtui.tui.app import GemtuiApp

    def make_session() -> Session:
        """Runs in a thread after the first frame; FatalAuthenticationError opens the
        welcome screen, any other FatalError stops the app with its exit code."""
        import io

        from gemtui.agent.session import Session, SessionOptions
        from gemtui.providers.factory import resolve_provider
        from gemtui.store.headless import attach_store

        notes = io.StringIO()
        store, resumed = attach_store(resume, workspace, notes)
        app.store = store
        if notes.getvalue():
            app.startup_notice = notes.getvalue().strip().removeprefix("gemtui: ")
        resolved = resolve_provider(
            settings, provider=provider, model=model, fake_responses=fake_responses
        )
        return Session(
            settings,
            resolved,
            SessionOptions(
                workspace=workspace,
                approval_mode=approval_mode or settings.general.approval_mode,
                max_turns=settings.general.max_turns,
                **resumed,
            ),
        )

    app = GemtuiApp(
        settings=settings,
        session=None,
        workspace=workspace,
        prompt=prompt,
        session_factory=make_session,
    )
    return app
