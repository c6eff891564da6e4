"""``gemtui sessions``: the session browser on its own, then the chosen session resumed."""

from __future__ import annotations

import contextlib
from pathlib import Path

from gemtui.agent.prices import PriceBook
from gemtui.store import SessionStore
from gemtui.tui.masking_app import MaskingApp

__all__ = ["SessionsApp", "launch_sessions_browser"]


class SessionsApp(MaskingApp[str | None]):
    """A tiny app hosting the browser screen; exits with the id to open (or None)."""

    TITLE = "gemtui sessions"

    def __init__(
        self, store: SessionStore, workspace: Path | None = None, prices: PriceBook | None = None
    ) -> None:
        super().__init__()
        self.store = store
        self.workspace = workspace
        self.prices = prices

    def on_mount(self) -> None:
        from gemtui.tui.screens.sessions import SessionsScreen

        screen = SessionsScreen(self.store, workspace=self.workspace, prices=self.prices)
        self.push_screen(screen, self.exit)


def launch_sessions_browser(workspace: Path | None = None) -> int:
    """Browse (costs at the user's own prices); when a session is opened, hand it to the
    main TUI. The store opens first: an unusable one is the first thing said."""
    from gemtui.agent.prices import readers_prices
    from gemtui.store.importer import import_gemini_cli

    with SessionStore() as store:
        prices = readers_prices(workspace or Path.cwd())  # FatalError: exit 52, said by the CLI
        # Gemini CLI's chats appear beside ours; a broken file never blocks the browser
        with contextlib.suppress(Exception):
            import_gemini_cli(store, workspaces=[workspace] if workspace else [])
        chosen = SessionsApp(store, workspace, prices).run()
    if not chosen:
        return 0
    from gemtui.agent.assembly import RunOptions
    from gemtui.tui.launch import launch_tui

    return launch_tui(RunOptions(workspace=workspace or Path.cwd(), resume=chosen))
