"""The approval preview says exactly which rule "allow for session / always" will save."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.approval_queue import ApprovalQueue
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages


async def test_allow_for_session_saves_what_the_preview_shows(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    command = "CI=1 npm test 2>/dev/null; echo done"
    mock_llm.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]},
        {"text": "ok"},
    )
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"test it", "enter")
        await seen.wait_for(lambda m: isinstance(m, ApprovalQueue.Changed) and m.count == 1)
        await pilot.pause()
        queue = app.main.approvals
        shown = str(queue.query_one(".preview-remembers", Static).render())
        assert shown == "session / always remember: npm test, echo"
        await pilot.press("2")  # allow for session (the queue took the focus: digits)
        await seen.wait_event(AgentFinished)
        await pilot.pause()
    saved = [r.summary() for r in session.policy.rules(session=True)]
    assert sorted(saved) == ["echo", "npm test"]
    assert "CI=1" not in " ".join(saved)
