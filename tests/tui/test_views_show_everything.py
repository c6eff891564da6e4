"""What the engine publishes reaches the person: live shell output, todos, retry numbers."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

from gemtui.bus.events import (
    AgentFinished,
    RequestRetrying,
    TodosUpdated,
    ToolCallState,
    ToolCallStateChanged,
    ToolOutput,
)
from gemtui.headless.formatters import TextFormatter
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages
from tests.tui.test_transcript import screen_text, settle


def _shell(command: str) -> dict[str, object]:
    return {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]}


async def _release(gate: Path) -> None:
    """Open the FIFO the command waits on, which lets it finish."""

    def write() -> None:
        with gate.open("w") as f:
            f.write("go\n")

    await asyncio.to_thread(write)


async def test_a_running_commands_output_shows_live_in_its_card(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    gate = workspace / "gate"
    os.mkfifo(gate)
    mock_llm.enqueue(
        _shell("echo first-live-line; echo second-live-line; read x < gate; echo after-gate"),
        {"text": "ran it"},
    )
    app = make_app(make_session(mock_llm.url, workspace, approval_mode="yolo"), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"run it", "enter")
        await seen.wait_for(
            lambda m: (
                isinstance(getattr(m, "event", None), ToolOutput)
                and "second-live-line"
                in "".join(
                    x.event.text
                    for x in seen.seen
                    if isinstance(getattr(x, "event", None), ToolOutput)
                )
            )
        )
        transcript = app.main.transcript
        await settle(pilot, transcript)
        text = screen_text(transcript)
        assert "✓" not in text, "the command is still running"
        assert "│ after-gate" not in text, "the command is still running"
        assert "│ first-live-line" in text
        assert "│ second-live-line" in text
        await _release(gate)
        await seen.wait_event(AgentFinished)
        await settle(pilot, transcript)
        text = screen_text(transcript)
        assert "│ after-gate" in text
        states = [
            m.event.call.state
            for m in seen.seen
            if isinstance(getattr(m, "event", None), ToolCallStateChanged)
        ]
        assert states[-1] == ToolCallState.SUCCESS


async def test_the_todo_list_the_model_writes_is_shown(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    todos = [
        {"description": "Read the parser", "status": "completed"},
        {"description": "Fix the comment case", "status": "in_progress"},
        {"description": "Write the release note", "status": "pending"},
    ]
    mock_llm.enqueue(
        {"function_calls": [{"name": "write_todos", "args": {"todos": todos}}]},
        {"text": "planned"},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        assert not app.main.todos.display, "no list, no panel"
        await pilot.press(*"plan it", "enter")
        await seen.wait_event(TodosUpdated)
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        panel = app.main.todos
        assert panel.display
        assert panel.border_title == "Todos 1/3"
        assert [line for _status, line in panel.items] == [
            "● Read the parser",
            "◐ Fix the comment case",
            "○ Write the release note",
        ]


async def test_tui_and_headless_number_a_retry_alike(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.pause()
        assert app.session is not None
        event = app.session.bus.emit(
            RequestRetrying, attempt=1, max_attempts=3, wait=5.0, message="429 slow down"
        )
        await seen.wait_event(RequestRetrying)
        busy = app.main.status.busy
    err = io.StringIO()
    TextFormatter(out=io.StringIO(), err=err)(event)
    assert "attempt 2/3" in busy
    assert "attempt 2/3" in err.getvalue()
