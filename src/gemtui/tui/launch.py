"""``launch_tui``: what ``gemtui`` (without ``-p``) runs. Textual is imported only here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.session import Session
    from gemtui.config.settings import Settings
    from gemtui.config.trust import WorkspaceTrust
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
    trust_workspace: bool = False,
) -> int:
    """Open the app and return its exit code (52 for broken settings).

    Without a configured provider the welcome screen opens instead of failing.
    """
    from gemtui.config.settings import load_settings
    from gemtui.config.trust import workspace_trust
    from gemtui.errors import FatalConfigError, FatalError
    from gemtui.logs import setup_logging

    setup_logging()

    try:
        trust = workspace_trust(workspace, flag=trust_workspace)
        settings = load_settings(workspace, trusted=trust.trusted)
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
        trust=trust,
    )
    if isinstance(app, FatalError):
        sys.stderr.write(f"gemtui: {app.message}\n")
        return app.exit_code
    try:
        app.run()
    finally:
        if app.session is not None:
            app.session.close_background()
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
    trust: WorkspaceTrust | None = None,
) -> GemtuiApp | FatalError:
    """The app for these options (the engine and the store start after its first frame).

    ``resume`` (an id, a prefix or ``latest``) starts the session from its saved history;
    an unknown one stops the app with exit 42. A store that cannot be opened costs the
    recording, never the app. ``trust`` is the folder's trust decision: when still open,
    the app asks before the engine starts, and the session uses the settings it ends with.
    """
    from gemtui.tui.app import GemtuiApp

    def make_session() -> Session:
        """Runs in a thread after the first frame; FatalAuthenticationError opens the
        welcome screen, any other FatalError stops the app with its exit code."""
        from gemtui.agent.provider_choice import resolve_provider
        from gemtui.agent.session import Session, SessionOptions
        from gemtui.store.headless import attach_store

        attached = attach_store(resume, workspace)
        app.store = attached.store
        app.store_attachment = attached
        current = app.settings  # the folder's own settings are in it only once trusted
        resolved = resolve_provider(
            current, provider=provider, model=model, fake_responses=fake_responses
        )
        return Session(
            current,
            resolved,
            SessionOptions(
                workspace=workspace,
                approval_mode=approval_mode or current.general.approval_mode,
                max_turns=current.general.max_turns,
                trusted_workspace=app.workspace_trusted,
                **attached.resumed,
            ),
        )

    app = GemtuiApp(
        settings=settings,
        session=None,
        workspace=workspace,
        prompt=prompt,
        session_factory=make_session,
        trust=trust,
    )
    return app
