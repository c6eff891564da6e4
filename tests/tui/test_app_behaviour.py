"""What the keys, slash commands, the prompt and the welcome screen do (no model calls)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Input

from gemtui.agent.provider_choice import ResolvedProvider, list_models
from gemtui.agent.session import Session, SessionOptions
from gemtui.config.paths import user_config_file
from gemtui.config.settings import Settings
from gemtui.providers.replay import ReplayGenerator
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.screens.dialogs import ConfirmScreen, HelpScreen, PermissionsScreen
from gemtui.tui.widgets.prompt_input import PromptInput, complete_path
from tests.tui.conftest import make_app
from tests.tui.helpers import group_done, turns_done


def _session(workspace: Path, entries: list[dict[str, Any]] | None = None) -> Session:
    provider = ResolvedProvider(
        "replay", "replay", ReplayGenerator(entries or []), "gemini-2.5-flash", 1_048_576
    )
    return Session(Settings(), provider, SessionOptions(workspace=workspace))


async def test_ctrl_c_clears_then_quits_only_on_a_second_press(workspace: Path) -> None:
    app = make_app(_session(workspace), workspace)
    async with app.run_test() as pilot:
        await pilot.press(*"draft")
        await pilot.press("ctrl+c")
        assert app.main.prompt.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        assert app.is_running, "one press on an empty prompt only warns"
        await pilot.press("ctrl+c")
    assert app.return_code == 0


async def test_shift_tab_cycles_approval_modes_and_ctrl_y_toggles_yolo(workspace: Path) -> None:
    """auto_edit and yolo are confirmed once per session; later changes just happen."""
    app = make_app(_session(workspace), workspace)
    async with app.run_test() as pilot:
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            if isinstance(app.screen, ConfirmScreen):
                await pilot.press("f8", "y")
            seen.append(app.main.status.approval_mode)
        assert seen == ["auto_edit", "plan", "default"]
        await pilot.press("shift+tab")
        assert not isinstance(app.screen, ConfirmScreen), "asked once per session"
        assert app.main.status.approval_mode == "auto_edit"
        await pilot.press("shift+tab", "shift+tab")
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("f8", "y")
        assert app.session is not None
        assert app.session.approval_mode == "yolo"
        assert app.main.status.approval_mode == "yolo"
        await pilot.press("ctrl+y")
        assert app.session.approval_mode == "default"
        await pilot.press("ctrl+y")
        assert app.session.approval_mode == "yolo", "confirmed once for the session"


class _PromptHost(App[None]):
    def __init__(self, workspace: Path) -> None:
        super().__init__()
        self.prompt = PromptInput(workspace=workspace)
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        yield self.prompt

    def on_mount(self) -> None:
        self.prompt.focus()

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        self.submitted.append(event.text)


async def test_prompt_history_and_newline_keys(workspace: Path) -> None:
    host = _PromptHost(workspace)
    prompt = host.prompt
    async with host.run_test() as pilot:
        await pilot.press(*"one", "ctrl+j", *"two", "enter")
        await pilot.press(*"three", "enter")
        await pilot.press("up")
        assert prompt.text == "three"
        await pilot.press("up")
        assert prompt.text == "one\ntwo"
        await pilot.press("down", "down")
        assert prompt.text == ""
    assert host.submitted == ["one\ntwo", "three"]


async def test_slash_completion_and_at_path_completion(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("")
    assert complete_path(workspace, "sr") == ["src/"]
    assert complete_path(workspace, "src/m") == ["src/main.py"]
    assert complete_path(workspace, "../") == []
    app = make_app(_session(workspace), workspace)
    async with app.run_test() as pilot:
        await pilot.press(*"/the")
        await pilot.pause()
        await pilot.press("tab")
        assert app.main.prompt.text == "/theme "
        app.main.prompt.clear()
        await pilot.press(*"look at @sr")
        await pilot.pause()
        await pilot.press("tab")
        await pilot.pause()
        await pilot.press("tab")
        assert app.main.prompt.text == "look at @src/main.py "


async def test_theme_command_switches_live_and_is_remembered(workspace: Path) -> None:
    app = make_app(_session(workspace), workspace)
    async with app.run_test() as pilot:
        await pilot.press(*"/theme gemtui-light", "enter")
        assert app.theme == "gemtui-light"
    assert tomllib.loads(user_config_file().read_text())["ui"]["theme"] == "gemtui-light"


async def test_help_permissions_sessions_and_unknown_commands(workspace: Path) -> None:
    app = make_app(_session(workspace), workspace)
    async with app.run_test() as pilot:
        app.run_slash("/help")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        app.run_slash("/permissions")
        await pilot.pause()
        assert isinstance(app.screen, PermissionsScreen)
        await pilot.press("escape")
        app.run_slash("/sessions")
        app.run_slash("/nope")
        await pilot.pause()
        texts = [n.message for n in app._notifications]
        assert any("session store could not be opened" in t for t in texts)  # no store here
        assert any("Unknown command /nope" in t for t in texts)


async def test_permissions_screen_removes_a_session_rule(workspace: Path) -> None:
    session = _session(workspace)
    tool = session.registry.get("run_shell_command")
    assert tool is not None
    added = session.policy.allow_for_session(tool, {"command": "ls -la"})
    assert added
    app = make_app(session, workspace)
    async with app.run_test() as pilot:
        app.run_slash("/permissions")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PermissionsScreen)
        rules = screen.query_one("#rules")
        rules.highlighted = screen._rules.index(added[0])  # type: ignore[attr-defined]
        await pilot.press("x")
        await pilot.pause()
    assert added[0] not in session.policy.rules()


async def test_copy_sends_the_last_answer_to_the_clipboard(workspace: Path) -> None:
    entries = [
        {
            "chunks": [
                {
                    "candidates": [
                        {
                            "content": {
                                "role": "model",
                                "parts": [{"text": "Try:\n\n```python\nprint('hi')\n```\n"}],
                            },
                            "finishReason": "STOP",
                        }
                    ]
                }
            ]
        }
    ]
    app = make_app(_session(workspace, entries), workspace)
    async with app.run_test() as pilot:
        await pilot.press(*"hi", "enter")
        await turns_done(app)
        for _ in range(5):
            await pilot.pause()
        app.run_slash("/copy code")
        assert app.clipboard.strip() == "print('hi')"
        app.run_slash("/copy")
        assert "```python" in app.clipboard


async def test_an_unexpected_error_becomes_a_notification(workspace: Path) -> None:
    from gemtui.bus.events import UserMessage
    from gemtui.tui.bridge import BusEvent

    app = GemtuiApp(settings=Settings(), session=_session(workspace), workspace=workspace)
    async with app.run_test() as pilot:
        app.main.transcript.add_user = _boom  # type: ignore[method-assign]
        app.post_message(BusEvent(UserMessage(text="x")))
        app.run_slash("/clear")
        await pilot.pause()
        app.main.transcript.clear = _boom  # type: ignore[method-assign]
        app.run_slash("/clear")
        await pilot.pause()
        assert app.is_running
        assert any("Something went wrong" in n.message for n in app._notifications)


def _boom(*args: object) -> None:
    raise RuntimeError("kaboom")


async def test_welcome_demo_starts_a_replayed_conversation(workspace: Path) -> None:
    from gemtui.tui.screens.welcome import WelcomeScreen

    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        await app.screen.workers.wait_for_complete()
        await pilot.click("#demo")
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "replay"
        assert app.main.status.provider == "replay"


async def test_welcome_api_key_goes_to_the_keyring_and_the_choice_is_saved(
    workspace: Path,
) -> None:
    from gemtui.config.secrets import get_secret

    app = make_app(None, workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await app.screen.workers.wait_for_complete()
        await pilot.click("#key")
        await pilot.press(*"secret-key", "enter")
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "gemini"
    assert get_secret("gemini-api-key") == "secret-key"
    assert tomllib.loads(user_config_file().read_text())["general"]["provider"] == "gemini"
    assert "secret-key" not in user_config_file().read_text()


async def test_welcome_fits_80x24_and_takes_a_server_url_the_probe_missed(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from gemtui.tui.screens.welcome import WelcomeScreen

    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        await app.screen.workers.wait_for_complete()
        for choice in ("#key", "#use-key", "#local-url", "#google", "#demo"):
            region = app.screen.query_one(choice).region
            assert region.y > 0, (choice, region)
            assert region.bottom <= 24, (choice, region)  # on screen without scrolling
        app.screen.query_one("#local-url", Input).value = f"{mock_llm.url}/v1"
        app.screen.query_one("#local-url", Input).focus()
        await pilot.press("enter")
        await group_done(app, "local-url")
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "local"
        # the server's own list (mock-model first), not a cloud default like gpt-4o-mini
        assert app.session.chat.model == "mock-model"
        assert app.main.status.model == "mock-model"
        models = [m for p, m in list_models(app.session.settings) if p == "local"]
        assert models == ["mock-model", "qwen3-coder", "gpt-4o-mini"]
        assert "gpt-4.1" not in [m for _, m in list_models(app.session.settings)]
    saved = user_config_file().read_text()
    assert f'base_url = "{mock_llm.url}/v1"' in saved
    assert 'default_model = "mock-model"' in saved


async def test_welcome_says_why_a_server_url_cannot_be_used(workspace: Path) -> None:
    """A URL where nothing lists models is not saved with a made-up model: it says why."""
    from gemtui.tui.screens.welcome import WelcomeScreen

    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.screen.workers.wait_for_complete()
        field = app.screen.query_one("#local-url", Input)
        field.value = "http://127.0.0.1:9/v1"  # the discard port: nothing listens
        field.focus()
        await pilot.press("enter")
        await group_done(app, "local-url")
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        said = str(app.screen.query_one("#message").render())
        assert "did not list any model" in said
        assert app.session is None
    assert not user_config_file().exists() or "127.0.0.1:9" not in user_config_file().read_text()


async def test_a_failed_turn_ends_the_usage_panes_estimate(workspace: Path) -> None:
    """A turn that raises sends no ``AgentFinished``: the pane's estimate line, shown from
    the model call's start, still goes when the failure is said."""
    from textual.widgets import Static

    from gemtui.tui.view import ops

    session = _session(workspace)
    app = GemtuiApp(settings=Settings(), session=session, workspace=workspace)

    async def fails(text: str, **_: object) -> None:
        app.main.drawing.apply(ops.ModelCallStarted())  # as the call's TurnStarted draws it
        raise RuntimeError("the wire broke")

    async with app.run_test() as pilot:
        await pilot.pause()
        session.send = fails  # type: ignore[method-assign, assignment]
        await pilot.press(*"hello", "enter")
        for _ in range(10_000):  # bounded: the turn's end is a state, not a time
            if any("The turn failed" in str(n.message) for n in app._notifications):
                break
            await pilot.pause()
        await pilot.pause()
        numbers = str(app.main.usage.query_one("#usage-numbers", Static).render())
        assert "streaming" not in numbers
        assert any("the wire broke" in str(n.message) for n in app._notifications)
