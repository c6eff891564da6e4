"""What a session controller needs of the app that owns it.

The controller (``session_host.SessionController``) is no base class of the App: it
reaches its App only through this protocol, so a test can hand it a plain object, and
one App can own several controllers (one per session).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.theme import Theme

    from gemtui.config.ui_choice import UiChoice
    from gemtui.tui.screens.main import MainScreen
    from gemtui.tui.themes import ThemeFailure

__all__ = ["ControllerHost"]


class ControllerHost(Protocol):
    """What a session controller needs of the app that owns it (``GemtuiApp`` in the
    TUI; a plain object in unit tests): Textual's calls, the main screen, the view
    choice, and the app's prompt handling."""

    ui: UiChoice
    """What the view shows (thoughts, usage, theme); a new ``Settings`` replaces it."""
    exit_message: str | None
    """Why the app stopped before it could start (printed by launch)."""
    theme_failures: list[ThemeFailure]
    slash_commands: dict[str, str]

    @property
    def main(self) -> MainScreen:
        """The main screen; ``LookupError`` while none is open."""
        ...

    @property
    def available_themes(self) -> dict[str, Theme]: ...

    @property
    def theme(self) -> str: ...

    @theme.setter
    def theme(self, value: str) -> None: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def push_screen(
        self, screen: Screen[Any], callback: Callable[[Any], Any] | None = None
    ) -> Any: ...

    def run_worker(
        self,
        work: Any,
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Any: ...

    def call_from_thread(
        self, callback: Callable[..., Any | Awaitable[Any]], *args: Any, **kwargs: Any
    ) -> Any: ...

    def call_after_refresh(
        self, callback: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> bool: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None: ...

    def set_class(self, add: bool, *class_names: str, update: bool = True) -> Any: ...

    def submit(self, text: str) -> None:
        """Send a prompt (the app's prompt handling)."""
        ...

    def send_next(self) -> None:
        """Send the next queued prompt when nothing runs."""
        ...

    def refresh_custom_commands(self) -> None:
        """Tell the prompt's completer the custom commands and workspace roots."""
        ...
