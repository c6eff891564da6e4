"""``launch_tui``: what ``gemtui`` (without ``-p``) runs. Textual is imported only here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.assembly import Assembled
    from gemtui.config.settings import Settings
    from gemtui.config.trust import WorkspaceTrust
    from gemtui.config.ui_choice import UiChoice
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
    max_turns: int | None = None,
    text_tools: bool = False,
    include_directories: tuple[str, ...] = (),
) -> int:
    """Open the app and return its exit code (52 for broken settings).

    Without a configured provider the welcome screen opens instead of failing.
    """
    from gemtui.config.trust import workspace_trust
    from gemtui.config.ui_choice import read_ui_choice
    from gemtui.errors import FatalConfigError, FatalError
    from gemtui.logs import setup_logging

    setup_logging()

    try:  # TOML syntax is checked now; the values with the engine, after the first frame
        trust = workspace_trust(workspace, flag=trust_workspace)
        ui = read_ui_choice(workspace, trusted=trust.trusted)
    except FatalConfigError as exc:
        sys.stderr.write(f"gemtui: {exc.message}\n")
        return exc.exit_code
    app = build_app(
        None,
        ui=ui,
        workspace=workspace,
        prompt=prompt,
        model=model,
        provider=provider,
        approval_mode=approval_mode,
        fake_responses=fake_responses,
        resume=resume,
        trust=trust,
        trust_workspace=trust_workspace,
        max_turns=max_turns,
        text_tools=text_tools,
        include_directories=include_directories,
    )
    if isinstance(app, FatalError):
        sys.stderr.write(f"gemtui: {app.message}\n")
        return app.exit_code
    hint: str | None = None
    try:
        app.run()
    finally:
        if app.session is not None:
            app.session.close_background()
        hint = app.resume_hint  # while the store is open: only a saved session has one
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
    *,
    ui: UiChoice | None = None,
    workspace: Path,
    prompt: str | None = None,
    model: str | None = None,
    provider: str | None = None,
    approval_mode: str | None = None,
    fake_responses: str | None = None,
    resume: str | None = None,
    trust: WorkspaceTrust | None = None,
    trust_workspace: bool = False,
    max_turns: int | None = None,
    text_tools: bool = False,
    include_directories: tuple[str, ...] = (),
) -> GemtuiApp | FatalError:
    """The app for these options (the engine and the store start after its first frame).

    ``settings`` None: validated from the files when the engine is built (after the
    first frame), ``ui`` being what the frame needs. ``resume`` (an id, a prefix or
    ``latest``) starts the session from its saved history; an unknown one stops the app
    with exit 42. A store that cannot be opened costs the
    recording, never the app. ``trust`` is the folder's trust decision: when still open,
    the app asks before the engine starts, and the session uses the settings it ends with.
    """
    from gemtui.agent.assembly import RunOptions
    from gemtui.tui.app import GemtuiApp

    options = RunOptions(
        workspace=workspace,
        provider=provider,
        model=model,
        approval_mode=approval_mode,
        max_turns=max_turns,
        text_tools=text_tools,
        fake_responses=fake_responses,
        resume=resume,
        trust_workspace=trust_workspace,
        include_directories=include_directories,
    )

    def make_session() -> Assembled:
        """Runs in a thread after the first frame and only reads the app: the result is
        handed to the UI thread. FatalAuthenticationError opens the welcome screen, any
        other FatalError stops the app with its exit code."""
        from gemtui.agent.assembly import build_session

        return build_session(app.settings, app.run_options, trusted=app.workspace_trusted)

    def load() -> Settings:
        """Validated when first needed: by the engine build, in its thread."""
        from gemtui.config.settings import load_settings

        return load_settings(workspace, trusted=app.workspace_trusted)

    app = GemtuiApp(
        settings=settings,
        settings_loader=load,
        ui=ui,
        session=None,
        workspace=workspace,
        prompt=prompt,
        session_factory=make_session,
        trust=trust,
        run_options=options,
    )
    return app
