"""A batch of edits is offered together: the queue says ``(n of N)``, j/k walk it, Ctrl+A
approves every edit of it; a key the arming delay drops says so on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.approval_queue import ApprovalQueue
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done


def _edits(*names: str) -> dict[str, Any]:
    return {
        "function_calls": [
            {
                "name": "replace",
                "args": {
                    "file_path": f"{n}.txt",
                    "instruction": "i",
                    "old_string": "old",
                    "new_string": "new",
                },
            }
            for n in names
        ]
    }


def title(app: Any) -> str:
    return str(app.main.approvals.query_one("#approval-title", Static).content)


async def test_a_batch_of_edits_is_offered_together_and_ctrl_a_approves_it(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    for n in "abc":
        (workspace / f"{n}.txt").write_text("old\n")
    mock_llm.enqueue(_edits("a", "b", "c"), {"text": "done"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"edit them", "enter")
        await seen.wait_approvals(3)
        await pilot.pause()
        assert "(1 of 3)" in title(app)
        assert isinstance(app.focused, ApprovalQueue)
        await pilot.press("f8", "j")  # letters browse once the queue is focused on purpose
        assert "(2 of 3)" in title(app)
        await pilot.press("j", "j")
        assert "(1 of 3)" in title(app)
        await pilot.press("k")
        assert "(3 of 3)" in title(app)
        await pilot.press("ctrl+a")
        done = await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert str(done.reason) == "GOAL"
        assert app.main.approvals.pending() == []
    assert [(workspace / f"{n}.txt").read_text() for n in "abc"] == ["new\n"] * 3


async def test_a_batch_answered_out_of_order(mock_llm: MockLLMServer, workspace: Path) -> None:
    for n in "ab":
        (workspace / f"{n}.txt").write_text("old\n")
    mock_llm.enqueue(_edits("a", "b"), {"text": "done"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"edit them", "enter")
        await seen.wait_approvals(2)
        await pilot.pause()
        await pilot.press("f8", "j", "r")  # reject b first
        assert "(1 of 1)" in title(app)
        await pilot.press("a")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
    assert (workspace / "a.txt").read_text() == "new\n"
    assert (workspace / "b.txt").read_text() == "old\n"


async def test_a_key_dropped_by_the_arming_delay_says_so(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ApprovalQueue, "ARM_DELAY", 60.0)
    (workspace / "a.txt").write_text("old\n")
    mock_llm.enqueue(_edits("a"), {"text": "done"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"edit", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        app.main.approvals.focus()
        await pilot.press("a")
        await pilot.pause()
        assert len(app.main.approvals.pending()) == 1
        shown = [str(n.message) for n in app._notifications]
        assert any("ignored" in t for t in shown), shown
        await pilot.press("escape")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
    assert (workspace / "a.txt").read_text() == "old\n"
