"""Sign in with Google from inside the TUI (welcome screen, ``/auth``, a refused refresh).

The same flow as ``gemtui auth login``: a browser is opened when there is one, the URL is
shown to copy, and the redirect URL or the code may be pasted at once. The dialog
dismisses with the signed-in email, or None when cancelled or refused (the reason stays
on screen until then).
"""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, LoadingIndicator, Static

from gemtui.tui.screens.dialogs import DIALOG_CSS

__all__ = ["SignInScreen"]


class _Lines:
    """A text stream the login writes to; the URL it prints goes on screen."""

    def __init__(self, screen: SignInScreen) -> None:
        self._screen = screen

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.strip().startswith("http"):
                self._screen.show_url(line.strip())
        return len(text)

    def flush(self) -> None:
        return None


class SignInScreen(ModalScreen[str | None]):
    """Runs the Google sign-in; dismisses with the email (or "") on success, None if not."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="SignInScreen")
        + """
    SignInScreen > Vertical { height: auto; max-height: 90%; }
    SignInScreen #sign-in-url { height: auto; margin: 1 0; color: $text-accent; }
    SignInScreen #sign-in-state { height: auto; }
    SignInScreen LoadingIndicator { height: 1; }
    """
    )

    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True)]

    def __init__(self, reason: str = "") -> None:
        super().__init__()
        self.reason = reason
        self.url = ""
        self._pasted: asyncio.Queue[str] = asyncio.Queue()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Sign in with Google", classes="dialog-title")
            if self.reason:
                yield Static(Content(self.reason), id="sign-in-reason")
            yield Static("Opening your browser…", id="sign-in-state")
            yield LoadingIndicator()
            yield Static(id="sign-in-url")
            yield Input(
                placeholder="or paste the redirect URL (or the code) here and press Enter",
                id="sign-in-paste",
            )
            yield Static("Esc cancel", classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.sign_in()

    def show_url(self, url: str) -> None:
        self.url = url
        self.query_one("#sign-in-url", Static).update(
            Content(f"If no browser opened, open this URL:\n{url}")
        )
        self.query_one("#sign-in-state", Static).update("Waiting for Google's answer…")

    async def _paste(self) -> str:
        return await self._pasted.get()

    @on(Input.Submitted, "#sign-in-paste")
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._pasted.put_nowait(event.value)
            event.input.value = ""

    @work(exclusive=True, group="sign-in", exit_on_error=False)
    async def sign_in(self) -> None:
        from gemtui.auth.login import login
        from gemtui.errors import FatalError

        try:
            tokens = await login(
                no_browser=False,
                paste=self._paste,
                err=_Lines(self),  # type: ignore[arg-type]
                paste_after=0,
            )
        except FatalError as exc:
            self._failed(exc.message)
            return
        except Exception as exc:  # a broken keyring, a port we may not bind
            self._failed(f"Sign-in failed: {type(exc).__name__}: {exc}")
            return
        self.dismiss(tokens.email)

    def _failed(self, message: str) -> None:
        self.query_one(LoadingIndicator).display = False
        self.query_one("#sign-in-state", Static).update(Content.styled(message, "$error"))

    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "sign-in")
        self.dismiss(None)
