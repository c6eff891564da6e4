"""Smaller things a first hour trips over: /permissions opens on a rule, /model checks the
name, exiting says how to come back."""

from __future__ import annotations

from pathlib import Path

from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.dialogs import PermissionsScreen
from tests.tui.conftest import make_app, make_session


async def test_permissions_opens_on_a_rule_that_can_be_removed(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    session = make_session(mock_llm.url, workspace)
    tool = session.registry.get("run_shell_command")
    assert tool is not None
    added = session.policy.allow_for_session(tool, {"command": "ls -la"})
    app = make_app(session, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/permissions", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PermissionsScreen)
        await pilot.press("x")  # no arrow key first
        await pilot.pause()
    assert added[0] not in session.policy.rules()


async def test_model_refuses_a_name_it_does_not_know(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.run_slash("/model no-such-model")
        await pilot.pause()
        assert session.chat.model == "gemini-2.5-flash"
        texts = [str(n.message) for n in app._notifications]
        assert any("no model 'no-such-model'" in t for t in texts), texts
        app.run_slash("/model gemini-2.5-pro")
        switching = [w for w in app.workers if w.group == "model"]
        assert switching, "a known model is switched to"
        await app.workers.wait_for_complete(switching)
        assert session.chat.model == "gemini-2.5-pro"


async def test_quitting_a_saved_session_says_how_to_resume_it(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from gemtui.bus.events import AgentFinished
    from gemtui.config.settings import Settings
    from gemtui.store import SessionStore
    from gemtui.tui.app import GemtuiApp
    from tests.tui.helpers import Messages, turns_done

    mock_llm.enqueue({"text": "saved answer"})
    session = make_session(mock_llm.url, workspace)
    app = GemtuiApp(
        settings=Settings(),
        session=session,
        workspace=workspace,
        raise_errors=True,
        store=SessionStore(),
    )
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        assert app.controller.resume_hint is None, "nothing saved yet: nothing to resume"
        await pilot.press(*"remember this", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert (
            app.controller.resume_hint == f"To continue this session: gemtui --resume {session.id}"
        )
    app.close_store()


async def test_palette_screenshot_says_where_and_theme_is_offered_once(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path, monkeypatch: object
) -> None:
    import pytest

    mp: pytest.MonkeyPatch = monkeypatch  # type: ignore[assignment]
    home = tmp_path / "home-without-downloads"
    home.mkdir()
    mp.setenv("HOME", str(home))
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Theme" not in titles, "themes are offered once, by entries that save"
        assert "Screenshot" in titles
        saved = app.take_screenshot()
        await pilot.pause()
        assert saved is not None
        assert saved.parent == workspace
        assert saved.read_text().startswith("<svg")
        texts = [str(n.message) for n in app._notifications]
        assert any(str(saved) in t for t in texts), texts
        (workspace / "locked").mkdir()
        mp.setattr(app.controller, "workspace", workspace / "locked" / "missing")
        assert app.take_screenshot() is None
        await pilot.pause()
        texts = [str(n.message) for n in app._notifications]
        assert any("Screenshot not saved" in t and "No such file" in t for t in texts), texts
