"""The first-run screen: choose how to reach a model when none is configured.

Choices: paste an API key (kept in the keyring, never in a file), a local OpenAI-compatible
server found on the usual loopback ports, Google sign-in (the account's Code Assist: since
2026-06-18 only Standard/Enterprise serves other clients than Google's), Vertex AI (its
variables), or the demo conversation. The choice is saved in the user ``config.toml``. The screen
dismisses with a ready session (or None when the person quits).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from collections.abc import Callable

    import httpx

    from gemtui.agent.assembly import Assembled

__all__ = ["LOCAL_PORTS", "LocalServer", "WelcomeScreen", "probe_local_servers"]

LOCAL_PORTS = (11434, 8080, 8000, 1234)
"""Ollama, llama.cpp, vLLM, LM Studio."""

DEMO_SCRIPT = Path(__file__).resolve().parent.parent / "demo.jsonl"

GOOGLE_NOTE = (
    "Google sign-in is for Gemini Code Assist Standard or Enterprise (Workspace and Cloud "
    "accounts, with GOOGLE_CLOUD_PROJECT): Google no longer serves individual accounts here."
)

KEY_PROVIDERS = [
    ("Gemini API key", "gemini"),
    ("OpenAI-compatible key", "openai"),
    ("Anthropic key", "anthropic"),
]


@dataclass(frozen=True)
class LocalServer:
    """An OpenAI-compatible server found on a loopback port, with its models."""

    port: int
    models: tuple[str, ...]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


async def server_models(client: httpx.AsyncClient, base_url: str, wait: float) -> tuple[str, ...]:
    """The model ids an OpenAI-compatible server lists at ``{base_url}/models``; raises
    ``httpx.HTTPError`` or ``ValueError`` when it does not answer with a list."""
    response = await client.get(f"{base_url.rstrip('/')}/models", timeout=wait)
    response.raise_for_status()
    data = response.json().get("data", [])
    if not isinstance(data, list):
        raise ValueError("no model list")
    return tuple(str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id"))


async def probe_local_servers(
    ports: tuple[int, ...] = LOCAL_PORTS, per_port: float = 0.3
) -> list[LocalServer]:
    """Servers answering ``GET /v1/models`` on loopback, probed concurrently."""
    import httpx

    async def probe(client: httpx.AsyncClient, port: int) -> LocalServer | None:
        try:
            models = await server_models(client, f"http://127.0.0.1:{port}/v1", per_port)
        except (httpx.HTTPError, ValueError, AttributeError):
            return None
        return LocalServer(port, models)

    async with httpx.AsyncClient() as client:
        found = await asyncio.gather(*(probe(client, p) for p in ports))
    return [server for server in found if server is not None]


def _port_list(ports: tuple[int, ...], last: str) -> str:
    """``11434, 8080, 8000 or 1234``."""
    names = [str(p) for p in ports]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


class WelcomeScreen(Screen["Assembled | None"]):
    """Shown instead of failing when no provider is configured."""

    DEFAULT_CSS = """
    WelcomeScreen { align: center middle; }
    WelcomeScreen > VerticalScroll { width: 90; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; background: $surface; padding: 0 2; }
    WelcomeScreen .title { text-style: bold; color: $text-primary; margin-bottom: 1; }
    WelcomeScreen .section { margin-top: 1; text-style: bold; }
    WelcomeScreen .note { color: $text-muted; height: auto; }
    WelcomeScreen Horizontal { height: auto; }
    WelcomeScreen Select { width: 30; }
    WelcomeScreen #key { width: 1fr; }
    WelcomeScreen #servers { height: auto; max-height: 8; display: none; }
    WelcomeScreen #servers.-found { display: block; }
    WelcomeScreen #message { color: $text-warning; height: auto; }
    WelcomeScreen .choices { margin-top: 1; }
    WelcomeScreen .choices Button { margin-right: 2; }
    WelcomeScreen #use-key { margin-left: 1; }
    """

    BINDINGS = [Binding("escape", "quit", "Quit")]

    NO_KEYRING = (
        "No OS keyring here: a pasted key is used for this run only (kept in memory, never "
        "written). To keep it, set GEMINI_API_KEY (or OPENAI_API_KEY, ANTHROPIC_API_KEY)."
    )

    PORTS: tuple[int, ...] = LOCAL_PORTS
    """Loopback ports probed for a local server (tests point it at their own server)."""

    def __init__(
        self,
        *,
        reason: str | None = None,
        build: Callable[[str | None, str | None], Assembled] | None = None,
        back: bool = False,
    ) -> None:
        super().__init__()
        self.reason = reason
        self.back = back
        """Opened from a running conversation (the demo's end): Esc goes back to it."""
        self._quit_asked = False
        """Esc was pressed once: a second one quits (a reflex never ends the app)."""
        self._build = build
        """Builds the session for a choice (provider, fake responses); the app's, given
        here so the screen never reaches up for the app."""
        self.servers: list[LocalServer] = []

    def compose(self) -> ComposeResult:
        # compact widgets (one line each): every choice fits an 80x24 terminal
        from gemtui.config.secrets import keyring_available

        keyring = keyring_available()
        # no Tab stop on the frame: it would take the focus and show none
        with VerticalScroll(can_focus=False):
            yield Static("Welcome to gemtui", classes="title")
            yield Static(self._why(), classes="note")
            yield Static(id="message")
            where = "kept in the OS keyring" if keyring else "for this run only"
            yield Static(f"1. Paste an API key ({where})", classes="section")
            if not keyring:  # said before the key is pasted, not after
                yield Static(self.NO_KEYRING, id="no-keyring", classes="note")
            with Horizontal():
                yield Select(
                    KEY_PROVIDERS, value="gemini", allow_blank=False, id="key-kind", compact=True
                )
                yield Input(placeholder="API key", password=True, id="key", compact=True)
                yield Button("Use this key", id="use-key", variant="primary", compact=True)
            yield Static("2. A local OpenAI-compatible server", classes="section")
            yield Static(
                f"Probing 127.0.0.1 ports {_port_list(self.PORTS, 'and')}…",
                id="probe-note",
                classes="note",
            )
            yield OptionList(id="servers")
            yield Input(
                placeholder="or its URL, e.g. http://127.0.0.1:8080/v1 (Enter uses it)",
                id="local-url",
                compact=True,
            )
            with Horizontal(classes="choices"):
                yield Button("3. Sign in with Google", id="google", compact=True)
                yield Button("4. Vertex AI", id="vertex", compact=True)
                yield Button("5. Try the demo", id="demo", variant="success", compact=True)
            yield Static(GOOGLE_NOTE, id="google-note", classes="note")

    @property
    def spoken(self) -> str:
        """The screen in a few sentences, for the screen-reader mode's log."""
        esc = "goes back" if self.back else "twice quits gemtui"
        return (
            f"Welcome to gemtui. {self._why()} The ways in: 1 paste an API key, 2 a local "
            "OpenAI-compatible server, 3 sign in with Google, 4 Vertex AI, 5 try the demo. "
            f"Tab moves between them, Enter chooses, Escape {esc}."
        )

    def _why(self) -> str:
        """Why the screen is open: the reason given when it was opened over a conversation
        (the demo's end); at start-up, no provider is set up yet."""
        if self.back and self.reason:
            return self.reason
        return "No model provider is configured yet. Choose one; it is saved for next time."

    def on_mount(self) -> None:
        # the key field first: a key pasted straight away lands where it is wanted
        self.query_one("#key", Input).focus()
        self.probe()

    @work(exclusive=True, group="probe", exit_on_error=False)
    async def probe(self) -> None:
        self.servers = await probe_local_servers(self.PORTS)
        options = self.query_one("#servers", OptionList)
        note = self.query_one("#probe-note", Static)
        if not self.servers:
            # the list stays hidden: no empty box, no Tab stop that leads nowhere
            note.update(f"No local server answered on ports {_port_list(self.PORTS, 'or')}.")
            return
        note.update("Found (Tab to the list, Enter picks one):")
        for server in self.servers:
            for model in server.models or ("(no model listed)",):
                options.add_option(Option(f"127.0.0.1:{server.port}  {model}"))
        options.highlighted = 0  # Enter picks the first one without a Down first
        options.add_class("-found")

    def _say(self, text: str) -> None:
        self.query_one("#message", Static).update(text)

    @on(Button.Pressed, "#google")
    def _google(self) -> None:
        from gemtui.tui.screens.sign_in import SignInScreen

        def done(email: str | None) -> None:
            if email is None:
                self._say(
                    "Not signed in. Try again, or use an API key, a local server or the demo."
                )
                return
            self._save_provider("code-assist")
            self._finish(provider="code-assist")

        self.app.push_screen(SignInScreen(), done)

    @on(Button.Pressed, "#vertex")
    def _vertex(self) -> None:
        from gemtui.agent.provider_choice import vertex_ready
        from gemtui.tui.screens.refused_account import VERTEX_VARIABLES

        if not vertex_ready():
            self._say("Vertex AI: " + VERTEX_VARIABLES)
            return
        self._save_provider("vertex")
        self._finish(provider="vertex")

    @on(Button.Pressed, "#demo")
    def _demo(self) -> None:
        self._finish(provider=None, fake_responses=str(DEMO_SCRIPT))

    @on(Input.Submitted, "#key")
    @on(Button.Pressed, "#use-key")
    def _use_key(self) -> None:
        from gemtui.config.secrets import keep_for_run, keyring_available, set_secret
        from gemtui.errors import FatalAuthenticationError

        key = self.query_one("#key", Input).value.strip()
        kind = str(self.query_one("#key-kind", Select).value)
        if not key:
            self._say("Paste a key first.")
            return
        if not keyring_available():  # the key still serves this run, from memory only
            keep_for_run(f"{kind}-api-key", key)
            self._save_provider(kind)
            self._finish(provider=kind)
            return
        try:
            set_secret(f"{kind}-api-key", key)
        except FatalAuthenticationError as exc:
            self._say(exc.message)
            return
        except Exception as exc:  # a locked or broken keyring backend
            self._say(f"The keyring refused the key ({type(exc).__name__}: {exc}).")
            return
        self._save_provider(kind)
        self._finish(provider=kind)

    @on(Input.Submitted, "#local-url")
    def _use_url(self, event: Input.Submitted) -> None:
        """A server the probe did not find (another port or host): its own model list is
        read first, so the model (and its price) is the server's, never a cloud default."""
        from urllib.parse import urlsplit

        url = event.value.strip().rstrip("/")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            self._say("Type the server's URL, e.g. http://127.0.0.1:8080/v1 (include the /v1).")
            return
        self._say(f"Asking {url}/models for its models…")
        self._add_server(url)

    @work(exclusive=True, group="local-url", exit_on_error=False)
    async def _add_server(self, url: str) -> None:
        import httpx

        from gemtui.config.user_config import save_choice

        try:
            async with httpx.AsyncClient() as client:
                models = await server_models(client, url, wait=3.0)
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            why = type(exc).__name__ if not str(exc) else str(exc).splitlines()[0]
            self._say(
                f"{url}/models did not list any model ({why}). Is the server running, and "
                "does the URL end in /v1? Fix it and press Enter again."
            )
            return
        table: dict[str, object] = {"kind": "openai", "base_url": url, "models": list(models)}
        if models:
            table["default_model"] = models[0]
        try:
            save_choice("providers", "local", table)
        except (OSError, ValueError) as exc:
            self._say(f"Could not save the settings: {exc}")
            return
        self._save_provider("local")
        self._finish(provider="local")

    @on(OptionList.OptionSelected, "#servers")
    def _pick_server(self, event: OptionList.OptionSelected) -> None:
        from gemtui.config.user_config import save_choice

        rows = [(s, m) for s in self.servers for m in (s.models or ("",))]
        server, model = rows[event.option_index]
        table: dict[str, object] = {"kind": "openai", "base_url": server.base_url}
        table["models"] = list(server.models)
        if model:
            table["default_model"] = model
        try:
            save_choice("providers", "local", table)
        except (OSError, ValueError) as exc:
            self._say(f"Could not save the settings: {exc}")
            return
        self._save_provider("local")
        self._finish(provider="local")

    def _save_provider(self, name: str) -> None:
        from gemtui.config.user_config import save_choice

        try:
            save_choice("general", "provider", name)
        except (OSError, ValueError) as exc:
            self._say(f"Could not save the choice: {exc}")

    def _finish(self, *, provider: str | None, fake_responses: str | None = None) -> None:
        """Build the session for the choice, or say honestly why it cannot be used.

        The app builds it with the flags this run started with (``-m``, the approval
        mode, ``--resume``…): the welcome screen only chooses the provider.
        """
        from gemtui.errors import FatalError

        assert self._build is not None, "the app gives the welcome screen its builder"
        try:
            built = self._build(provider, fake_responses)
        except FatalError as exc:
            self._say(exc.message)
            return
        except Exception as exc:  # e.g. a malformed policy file
            self._say(f"Could not start: {exc}")
            return
        self.dismiss(built)

    def action_quit(self) -> None:
        """Esc goes back to the conversation it came from; on a first screen it asks
        first, and a second Esc quits."""
        if self.back or self._quit_asked:
            self.dismiss(None)
            return
        self._quit_asked = True
        self._say("Esc again quits gemtui; or choose one of the ways below.")

    def on_descendant_focus(self) -> None:
        self._quit_asked = False  # moved on: the next Esc asks again
