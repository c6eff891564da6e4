"""The welcome screen answers the first keys a person presses: a pasted key lands in the
key field, Enter on a found server picks it, and an empty server list takes no room and no
Tab stop. The probe runs against the mock server's own loopback port."""

from __future__ import annotations

import socket
import tomllib
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from gemtui.config.paths import user_config_file
from gemtui.config.secrets import get_secret
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.welcome import WelcomeScreen
from tests.tui.conftest import make_app


def _dead_port() -> int:
    """A loopback port nobody listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_key_pasted_at_once_lands_in_the_key_field(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(WelcomeScreen, "PORTS", (_dead_port(),))
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        assert app.focused is app.screen.query_one("#key", Input)
        app.post_message(events.Paste("pasted-secret"))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "gemini"
    assert get_secret("gemini-api-key") == "pasted-secret"


async def test_enter_on_a_found_server_picks_it_without_a_down_first(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gemtui.tui.screens import welcome

    monkeypatch.setattr(WelcomeScreen, "PORTS", (mock_llm.port,))
    real_probe = welcome.probe_local_servers

    async def probe(ports: tuple[int, ...]) -> list[welcome.LocalServer]:
        # the server is alive: its answer is tested, not how fast a loaded machine gives it
        return await real_probe(ports, per_port=30.0)

    monkeypatch.setattr(welcome, "probe_local_servers", probe)
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        await screen.workers.wait_for_complete()
        await pilot.pause()
        servers = screen.query_one("#servers", OptionList)
        assert servers.display
        assert servers.region.height > 0
        assert servers.option_count >= 1
        first = str(servers.get_option_at_index(0).prompt)
        assert first.startswith(f"127.0.0.1:{mock_llm.port}")
        # from the key field, Tab reaches the list (past the key button)
        await pilot.press("tab", "tab")
        assert app.focused is servers
        await pilot.press("enter")
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "local"
    table = tomllib.loads(user_config_file().read_text())["providers"]["local"]
    assert table["base_url"] == f"http://127.0.0.1:{mock_llm.port}/v1"
    assert table["default_model"] == first.split()[-1]


async def test_no_server_found_leaves_no_empty_box_and_no_tab_stop(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _dead_port()
    monkeypatch.setattr(WelcomeScreen, "PORTS", (port,))
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert f"No local server answered on ports {port}" in str(
            screen.query_one("#probe-note").render()
        )
        servers = screen.query_one("#servers", OptionList)
        assert not servers.display
        assert servers.region.height == 0
        # Tab from the key field: the key button, then straight to the URL field
        await pilot.press("tab", "tab")
        assert app.focused is screen.query_one("#local-url", Input)


class TestWelcomeSnapshots:
    """The probe's answer is pinned (a real probe is tested above) so the picture is stable."""

    @pytest.mark.parametrize("found", [True, False], ids=["server-found", "none-found"])
    def test_welcome_at_80x24(
        self, snap_compare: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch, found: bool
    ) -> None:
        """The key field focused (its cursor shown) under "1. Paste an API key". Found: a
        list under "Found (Tab to the list, Enter picks one):" with its first row
        "127.0.0.1:11434  qwen2.5-coder:7b" highlighted. None found: the note "No local
        server answered on ports 11434, 8080, 8000 or 1234." and straight under it the URL
        field — no empty box. Under the buttons (Google, Vertex AI, demo) the note on who
        Google sign-in is for. Every choice fits without scrolling."""
        from gemtui.tui.screens import welcome

        servers = [welcome.LocalServer(11434, ("qwen2.5-coder:7b", "llama3.2:3b"))]

        async def probe(ports: tuple[int, ...] = ()) -> list[welcome.LocalServer]:
            return servers if found else []

        monkeypatch.setattr(welcome, "probe_local_servers", probe)

        async def run_before(pilot: Pilot[Any]) -> None:
            await pilot.app.screen.workers.wait_for_complete()
            await pilot.pause()
            await pilot.pause()

        app = make_app(None, workspace, welcome_reason="No model provider is configured.")
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
