"""What the slash handlers, flows and palette see of the app, declared below it.

They take the app as an ``AppSurface`` so they never import ``GemtuiApp`` (which imports
them). The session's own life is its controller's (``app.controller``, one per session:
the front one); the App is not a controller, it owns one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gemtui.tui.masking_app import MaskingApp

if TYPE_CHECKING:
    from collections import deque
    from collections.abc import Callable

    from textual.notifications import SeverityLevel

    from gemtui.agent.session import Session
    from gemtui.tui.fleet_adapter import WorktreeOpener
    from gemtui.tui.screens.main import MainScreen
    from gemtui.tui.session_host import SessionController

__all__ = ["AppSurface"]


class AppSurface(MaskingApp[int]):
    """An app that shows its front session's controller; ``GemtuiApp`` fills it in."""

    controller: SessionController
    """The front session's controller: the one on screen, that prompts go to."""
    slash_commands: dict[str, str]
    """Every slash command with its help (the app's table), for the prompt's completion."""
    open_worktree: WorktreeOpener | None = None
    """Makes a new agent's worktree (the launcher hands in ``-w``'s machinery)."""
    fleet_later: Callable[[], None] | None = None
    """Starts the fleet now when its start waits for the first prompt to end."""

    @property
    def session(self) -> Session | None:
        """The front session; None until the welcome screen chose a provider."""
        return self.controller.session

    @property
    def queued(self) -> deque[str]:
        """Prompts typed while a turn runs (or the engine starts), sent in order."""
        return self.controller.queued

    @property
    def turn_running(self) -> bool:
        """A prompt of the front session is in its turn worker."""
        return self.controller.turn_running

    @turn_running.setter
    def turn_running(self, value: bool) -> None:
        self.controller.turn_running = value

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """In the screen-reader mode a notification is a line in the log, in order with
        the rest (a toast is a box that vanishes before it is read); else a toast."""
        from gemtui.tui.screen_reader import say_notice

        if not say_notice(self, message, title=title, severity=severity, markup=markup):
            super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def close_store(self) -> None:
        """Persist what is left of the session and close the store (on exit)."""
        self.controller.close_store()

    @property
    def main(self) -> MainScreen:
        """The main screen; ``LookupError`` while none is open."""
        raise NotImplementedError

    def submit(self, text: str) -> None:
        """Send a prompt (the app's prompt handling)."""
        raise NotImplementedError

    def run_slash(self, line: str) -> None:
        """Run one slash command line (the app's command handling)."""
        raise NotImplementedError

    def send_prompt(self, text: str) -> None:
        """Send ``text`` as typed, never as a built-in command (the app's prompt handling)."""
        raise NotImplementedError

    def run_turn(self, text: str, media: list[Any] | None = None) -> object:
        """Run one prompt, with ``media`` (images) after its text, in the turn worker."""
        raise NotImplementedError

    def send_next(self) -> None:
        """Send the next queued prompt when nothing runs (the app's prompt handling)."""
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
