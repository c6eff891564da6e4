"""What the TUI shows masks known secrets: notices, tool cards, answers, thoughts, prompts."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.content import Content

from gemtui.bus.events import AgentFinished, ToolCallState, ToolCallStateChanged
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done
from tests.tui.test_transcript import screen_text, settle

KEY = "AIzaSyTUI-0123456789abcdefghijklmn"
MASK = "[redacted]"


async def test_an_error_echoing_the_key_a_tool_card_and_a_notification_are_masked(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    (workspace / "creds.txt").write_text(f"key={KEY}\n", encoding="utf-8")
    mock_llm.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "creds.txt"}}]},
        # one token in many chunks: the key is split between deltas
        {"thought": f"**Keys** found:{KEY}", "text": f"It-is:{KEY}.", "chunks": 12},
        {"error": {"status": 400, "message": f"API key not valid: {KEY}"}},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"read creds.txt", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        mark = len(seen.seen)
        await pilot.press(*f"again with {KEY}", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
        await pilot.press(*f"/theme {KEY}", "enter")  # the notification echoes the argument
        await pilot.pause()
        transcript = app.screen.transcript  # type: ignore[attr-defined]
        await settle(pilot, transcript)
        shown = screen_text(transcript)
        thoughts = app.screen.thoughts.groups()  # type: ignore[attr-defined]
        # as the toast shows it: markup rendered (a bare "[redacted]" would vanish as a tag)
        notes = [
            Content.from_markup(n.message).plain if n.markup else n.message
            for n in app._notifications
        ]
    done = [
        m.event
        for m in seen.seen
        if isinstance(getattr(m, "event", None), ToolCallStateChanged)
        and m.event.call.state is ToolCallState.SUCCESS
    ]
    assert done
    assert KEY in (done[0].call.output or "")
    assert "API key not valid" in shown
    assert f"key={MASK}" in shown
    assert f"It-is:{MASK}." in shown
    assert f"again with {MASK}" in shown
    assert thoughts
    assert all(KEY not in text for _, text in thoughts), thoughts
    assert any(MASK in text for _, text in thoughts), thoughts
    assert any(f"No theme named '{MASK}'" in n for n in notes), notes
    assert KEY not in shown
    assert not any(KEY in n for n in notes)


async def test_the_session_browser_shows_where_a_key_was_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import DataTable

    from gemtui.store import SessionStore
    from gemtui.tui.sessions_launch import SessionsApp

    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with SessionStore(tmp_path / "sessions.db") as store:
        store.create_session(title=f"deploy with {KEY}", workspace=str(tmp_path))
        app = SessionsApp(store, tmp_path)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#sessions-table", DataTable)
            rendered = table.render_line(1).text  # the first row, under the header
    # stored masked, and shown as text: as markup, "[redacted]" would vanish as a tag
    assert KEY not in rendered, rendered
    assert "deploy with [redacted]" in rendered, rendered
