"""A Google account refused for Code Assist, in the TUI: Google's reason, the alternatives,
and the chosen one set up in one step (the conversation goes on over it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.message import Message
from textual.widgets import Button
from textual.worker import Worker, WorkerState

from gemtui.bus.events import AgentFinished, SessionStarted
from gemtui.testing.mock_oauth import UNSUPPORTED_CLIENT_MESSAGE
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.refused_account import RefusedAccountScreen
from gemtui.tui.screens.sign_in import SignInScreen
from gemtui.tui.screens.welcome import WelcomeScreen
from tests.conftest import MemoryKeyring
from tests.tui.conftest import make_app
from tests.tui.helpers import Messages

BROWSER_SCRIPT = """
import sys, httpx
httpx.get(sys.argv[1], follow_redirects=True, timeout=10)
"""


@pytest.fixture
def google(mock_llm: MockLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Google's endpoints are the mock's (the Gemini API's too); the browser is a script."""
    browser = tmp_path / "browser"
    browser.write_text(f"#!{sys.executable}\n{BROWSER_SCRIPT}", encoding="utf-8")
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))
    monkeypatch.setenv("GEMTUI_OAUTH_AUTH_URL", f"{mock_llm.url}/auth")
    monkeypatch.setenv("GEMTUI_OAUTH_TOKEN_URL", f"{mock_llm.url}/token")
    monkeypatch.setenv("CODE_ASSIST_ENDPOINT", mock_llm.url)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm.url)
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", mock_llm.url)
    for name in (
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_CLOUD_PROJECT",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("google")
async def test_a_refused_account_switches_to_a_gemini_key_in_one_step(
    mock_llm: MockLLMServer, workspace: Path, memory_keyring: MemoryKeyring
) -> None:
    mock_llm.account.refused = True
    mock_llm.enqueue({"text": "Answered over the Gemini API."})
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    seen = Messages()
    async with app.run_test(size=(110, 44), message_hook=seen) as pilot:
        await pilot.pause()
        await app.screen.workers.wait_for_complete()
        await pilot.click("#google")
        await seen.wait_event(SessionStarted)
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "code-assist"

        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RefusedAccountScreen), type(screen)  # not the sign-in dialog
        shown = " ".join(screen.reason.split())
        assert UNSUPPORTED_CLIENT_MESSAGE in shown
        assert "UNSUPPORTED_CLIENT" in shown
        assert "GOOGLE_CLOUD_LOCATION" in str(screen.query_one("#refused-vertex-help").render())

        await pilot.press(*"typed-gemini-key", "enter")  # the key field has the focus
        await pilot.pause()
        await _switched(seen)
        assert not isinstance(app.screen, (RefusedAccountScreen, SignInScreen))
        assert app.session.provider.name == "gemini"
        assert app.main.status.provider == "gemini"
        assert memory_keyring.store[("gemtui", "gemini-api-key")] == "typed-gemini-key"

        mark = len(seen.seen)
        await pilot.press(*"hello again", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await pilot.pause()
    calls = [r for r in mock_llm.requests if r.path.startswith("/v1beta/models/")]
    assert [r.headers["x-goog-api-key"] for r in calls] == ["typed-gemini-key"]
    assert not [
        r for r in mock_llm.requests if "GenerateContent" in r.path and "v1internal" in r.path
    ]
    assert 'provider = "gemini"' in _user_config()


@pytest.mark.usefixtures("google")
async def test_with_vertex_variables_set_one_press_uses_vertex(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mock_llm.account.refused = True
    mock_llm.account.vertex_api_key = "vertex-key"
    mock_llm.enqueue({"text": "Answered over Vertex AI."})
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    seen = Messages()
    async with app.run_test(size=(110, 44), message_hook=seen) as pilot:
        await pilot.pause()
        await app.screen.workers.wait_for_complete()
        await pilot.click("#google")
        await seen.wait_event(SessionStarted)
        await pilot.pause()
        # the person sets Vertex's variables meanwhile (express mode)
        monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
        monkeypatch.setenv("GOOGLE_API_KEY", "vertex-key")
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert isinstance(app.screen, RefusedAccountScreen)
        await pilot.click("#refused-vertex")
        await pilot.pause()
        await _switched(seen)
        assert app.session is not None
        assert app.session.provider.name == "vertex"
        mark = len(seen.seen)
        await pilot.press(*"hello again", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await pilot.pause()
    calls = [r for r in mock_llm.requests if "/publishers/google/models/" in r.path]
    assert [r.headers["x-goog-api-key"] for r in calls] == ["vertex-key"]


@pytest.mark.usefixtures("google")
async def test_the_welcome_screen_says_who_google_sign_in_is_for(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    async with app.run_test(size=(110, 44)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        note = " ".join(str(app.screen.query_one("#google-note").render()).split())
        assert "Code Assist Standard or Enterprise" in note
        assert "Workspace" in note


async def _switched(seen: Messages) -> None:
    """Wait for the provider switch the choice started (the app's other workers run on)."""

    def done(m: Message) -> bool:
        return (
            isinstance(m, Worker.StateChanged)
            and m.worker.name == "switch-model"
            and m.state in (WorkerState.SUCCESS, WorkerState.ERROR)
        )

    await seen.wait_for(done)


def _user_config() -> str:
    from gemtui.config.paths import user_config_file

    return user_config_file().read_text(encoding="utf-8")


@pytest.mark.usefixtures("google")
async def test_auth_vertex_moves_the_session_to_vertex_and_model_offers_it(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gemtui.agent.provider_choice import list_models
    from gemtui.config.settings import Settings
    from tests.tui.conftest import make_session

    mock_llm.account.vertex_api_key = "vertex-key"
    mock_llm.enqueue({"text": "Over Vertex."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        app.run_slash("/auth vertex")  # its variables unset: says which, changes nothing
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "gemini"
        assert ("vertex", "gemini-2.5-pro") not in list_models(Settings())
        monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
        monkeypatch.setenv("GOOGLE_API_KEY", "vertex-key")
        assert ("vertex", "gemini-2.5-pro") in list_models(Settings())
        app.run_slash("/auth vertex")
        await _switched(seen)
        await pilot.pause()
        assert app.session.provider.name == "vertex"
        await pilot.press(*"hi", "enter")
        await seen.wait_event(AgentFinished)
    (call,) = [r for r in mock_llm.requests if "/publishers/google/models/" in r.path]
    assert call.headers["x-goog-api-key"] == "vertex-key"


@pytest.mark.usefixtures("google")
async def test_the_welcome_screens_vertex_choice_says_the_variables_then_uses_them(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    seen = Messages()
    async with app.run_test(size=(110, 44), message_hook=seen) as pilot:
        await pilot.pause()
        await app.screen.workers.wait_for_complete()
        # no "pressed" animation: the second click must not fall inside the first one's
        app.screen.query_one("#vertex", Button).active_effect_duration = 0
        await pilot.click("#vertex")
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)  # nothing set: it says what to set
        said = " ".join(str(app.screen.query_one("#message").render()).split())
        assert "GOOGLE_GENAI_USE_VERTEXAI=true GOOGLE_CLOUD_PROJECT=" in said
        monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
        monkeypatch.setenv("GOOGLE_API_KEY", "vertex-key")
        await pilot.click("#vertex")
        await seen.wait_event(SessionStarted)
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "vertex"
    assert 'provider = "vertex"' in _user_config()
