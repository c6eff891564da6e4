"""A resumed tool card looks like the live one: a rejected call says "rejected" (not
"failed"), an edit keeps its diff, a command that exited non-zero its "exit N", every card
its duration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished, Refusal, ToolCallState
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from tests.tui.helpers import Messages, engine_started, turns_done
from tests.tui.test_resume_shows_what_happened import _settings_for


def _cards(app: GemtuiApp) -> dict[str, tuple[Any, ...]]:
    tools: dict[str, Any] = app.main.transcript._tools
    return {
        call_id: (
            block.snapshot.state,
            block.snapshot.refusal,
            block._state_label(),
            tuple(block._output_lines()),
        )
        for call_id, block in tools.items()
    }


async def test_resumed_cards_show_what_the_live_ones_showed(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    (workspace / "greet.py").write_text("def greet():\n    return 'hello'\n")
    edit = {
        "name": "replace",
        "id": "edit-1",
        "args": {
            "file_path": "greet.py",
            "instruction": "friendlier",
            "old_string": "    return 'hello'",
            "new_string": "    return 'hello, friend'",
        },
    }
    write = {
        "name": "write_file",
        "id": "write-1",
        "args": {"file_path": "notes.txt", "content": "scratch\n"},
    }
    failing = {"name": "run_shell_command", "id": "shell-1", "args": {"command": "exit 4"}}
    mock_llm.enqueue(
        {"function_calls": [edit]},
        {"text": "Edited."},
        {"function_calls": [write]},
        {"text": "Not written, then."},
        {"function_calls": [failing]},
        {"text": "It failed."},
    )
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*"make it friendlier", "enter")
        await seen.wait_approvals(1)
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        mark = len(seen.seen)
        await pilot.press(*"write some notes", "enter")
        await seen.wait_approvals(1, after=mark)
        await pilot.press("f8", "r")
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
        mark = len(seen.seen)
        await pilot.press(*"run it", "enter")
        await seen.wait_approvals(1, after=mark)
        await pilot.press("f8", "1")  # answered on purpose (F8), as every approval is
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
        live = _cards(app)
        assert app.session is not None
        session_id = app.session.id
    app.close_store()
    assert live["edit-1"][0] is ToolCallState.SUCCESS
    assert any("hello, friend" in line for line in live["edit-1"][3])
    assert live["write-1"][1] is Refusal.REJECTED
    assert live["write-1"][2] == "rejected"
    assert live["shell-1"][2].startswith("exit 4")

    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace, resume=session_id))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        for _ in range(3):
            await pilot.pause()
        resumed = _cards(app)
    app.close_store()
    assert resumed == live
