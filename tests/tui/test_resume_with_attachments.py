"""A resumed session that used ``@file`` reads as it happened: each prompt once, as the
person typed it, the attached file's contents never posing as the person's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from tests.tui.helpers import Messages, engine_started, turns_done
from tests.tui.test_resume_shows_what_happened import _settings_for


async def test_a_resumed_session_with_an_attached_file_shows_each_turn_once(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("print('MAIN-BODY')\n")
    mock_llm.enqueue({"text": "It prints MAIN-BODY."}, {"text": "Nothing else."})
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*"explain @src/main.py please", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        mark = len(seen.seen)
        await pilot.press(*"anything else?", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
        live = app.main.transcript.messages()
        assert app.session is not None
        session_id = app.session.id
    app.close_store()

    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace, resume=session_id))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        for _ in range(3):
            await pilot.pause()
        messages = app.main.transcript.messages()
    app.close_store()
    users = [t for r, t in messages if r == "user"]
    assert users == ["explain @src/main.py please", "anything else?"], messages
    answers = [t for r, t in messages if r != "user" and "MAIN-BODY" in t]
    assert answers == ["It prints MAIN-BODY."], messages
    assert not any("print('MAIN-BODY')" in t for r, t in messages if r == "user")
    assert [m for m in messages if m[0] == "user"] == [m for m in live if m[0] == "user"]
