"""Google refused the account for Code Assist: say why and switch to what works, in one step.

Since 2026-06-18 Code Assist for individuals refuses third-party clients; signing in again
cannot help. The dialog shows Google's own reason and the ways that still reach Gemini:
a Gemini API key (typed here, kept in the keyring), Vertex AI (used at once when its
variables are set, else the three to set), Code Assist Standard/Enterprise with a Cloud
project, or another provider. It dismisses with the provider to switch to, or None.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from gemtui.tui.screens.dialogs import DIALOG_CSS

__all__ = ["VERTEX_VARIABLES", "RefusedAccountScreen"]

VERTEX_VARIABLES = (
    "export GOOGLE_GENAI_USE_VERTEXAI=true GOOGLE_CLOUD_PROJECT=your-project "
    "GOOGLE_CLOUD_LOCATION=us-central1 (with Application Default Credentials), or "
    "GOOGLE_API_KEY alone for express mode; then restart gemtui."
)


class RefusedAccountScreen(ModalScreen[str | None]):
    """Google's reason, and the alternatives; dismisses with ``gemini``, ``vertex`` or None."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="RefusedAccountScreen")
        + """
    RefusedAccountScreen > Vertical { height: auto; max-height: 90%; }
    RefusedAccountScreen #refused-reason { height: auto; color: $text-warning; margin-bottom: 1; }
    RefusedAccountScreen .section { text-style: bold; margin-top: 1; }
    RefusedAccountScreen .note { height: auto; color: $text-muted; }
    RefusedAccountScreen Horizontal { height: auto; }
    RefusedAccountScreen #refused-key { width: 1fr; }
    RefusedAccountScreen #refused-message { height: auto; color: $text-error; }
    """
    )

    BINDINGS = [Binding("escape", "close", "Close", priority=True)]

    def __init__(self, reason: str, *, vertex_ready: bool) -> None:
        super().__init__()
        self.reason = reason
        """Google's words, as the engine reported them."""
        self.vertex_ready = vertex_ready
        """Vertex AI's variables are set: one key press switches to it."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Google refused this account for Code Assist", classes="dialog-title")
            yield Static(Content(self.reason), id="refused-reason")
            yield Static("What works instead:", classes="section")
            yield Static("1. A Gemini API key (kept in the OS keyring)", classes="section")
            with Horizontal():
                yield Input(placeholder="Gemini API key", password=True, id="refused-key")
                yield Button("Use this key", id="refused-use-key", variant="primary")
            yield Static("2. Vertex AI", classes="section")
            if self.vertex_ready:
                yield Button("Use Vertex AI", id="refused-vertex", variant="primary")
            else:
                yield Static(VERTEX_VARIABLES, classes="note", id="refused-vertex-help")
            yield Static("3. Gemini Code Assist Standard or Enterprise", classes="section")
            yield Static(
                "For Workspace and Cloud accounts: export GOOGLE_CLOUD_PROJECT=your-project-id "
                "and restart gemtui; the same sign-in then uses that project.",
                classes="note",
            )
            yield Static("4. Another provider", classes="section")
            yield Static(
                "/model lists the providers configured; or restart with --provider openai "
                "or anthropic (or a local server).",
                classes="note",
            )
            yield Static(id="refused-message")
            yield Static("Esc close", classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#refused-key", Input).focus()

    @on(Input.Submitted, "#refused-key")
    @on(Button.Pressed, "#refused-use-key")
    def _use_key(self) -> None:
        from gemtui.config.secrets import set_secret

        key = self.query_one("#refused-key", Input).value.strip()
        if not key:
            self._say("Paste a Gemini API key first (https://aistudio.google.com/apikey).")
            return
        try:
            set_secret("gemini-api-key", key)
        except Exception as exc:  # a locked or broken keyring backend: the key stays typed
            self._say(f"The keyring refused the key ({type(exc).__name__}: {exc}).")
            return
        self.dismiss("gemini")

    @on(Button.Pressed, "#refused-vertex")
    def _use_vertex(self) -> None:
        self.dismiss("vertex")

    def _say(self, text: str) -> None:
        self.query_one("#refused-message", Static).update(text)

    def action_close(self) -> None:
        self.dismiss(None)
