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
    """The app for these options, or the FatalError that prevents starting it.

    The session store is opened here; ``resume`` (an id, a prefix or ``latest``) starts
    the session from its saved history. A store that cannot be opened costs the
    recording, never the app.
    """
    import io

    from gemtui.errors import FatalError
    from gemtui.store.headless import attach_store
    from gemtui.tui.app import GemtuiApp

    notes = io.StringIO()
    try:
        store, resumed = attach_store(resume, workspace, notes)
    except FatalError as exc:
        return exc

    def make_session() -> Session:
        """Runs after the first frame; FatalAuthenticationError opens the welcome screen."""
        from gemtui.agent.session import Session, SessionOptions
        from gemtui.providers.factory import resolve_provider

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
        store=store,
        session_factory=make_session,
    )
    if notes.getvalue():
        app.startup_notice = notes.getvalue().strip().removeprefix("gemtui: ")
    return app
