"""Keys and prompts reach what they are meant for: decision keys wait for the call, Esc in
the feedback box stays there, and a prompt typed during start-up runs after the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.approval_queue import ApprovalQueue
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, replace_step, turns_done


async def test_decision_keys_wait_until_the_call_has_been_seen(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ApprovalQueue, "ARM_DELAY", 60.0)
    (workspace / "g.txt").write_text("hello world\n")
    mock_llm.enqueue(replace_step("g.txt"), {"text": "ok"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        await pilot.press("r", "a")  # typed by a person who meant the prompt
        await pilot.pause()
        assert len(app.main.approvals.pending()) == 1, "no decision was taken"
        await pilot.press("escape")  # Esc cancels the turn; the call is never run
        await seen.wait_event(AgentFinished)
        await turns_done(app)
    assert (workspace / "g.txt").read_text() == "hello world\n"


async def test_escape_in_the_feedback_box_does_not_cancel_the_turn(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "g.txt").write_text("hello world\n")
    mock_llm.enqueue(replace_step("g.txt"), {"text": "fine"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        app.main.approvals.focus()
        await pilot.press("f")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.turn_running
        assert len(app.main.approvals.pending()) == 1
        await pilot.press("a")
        done = await seen.wait_event(AgentFinished)
        assert str(done.reason) == "GOAL"
    assert (workspace / "g.txt").read_text() == "hello there\n"


async def test_the_start_up_prompt_and_a_prompt_typed_meanwhile_both_run(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": "first answer"}, {"text": "second answer"})
    app = make_app(make_session(mock_llm.url, workspace), workspace, prompt="first")
    app.queued.append("second")  # typed while the engine was starting
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await seen.wait_event(AgentFinished)
        await seen.wait_for(
            lambda m: (
                sum(1 for x in seen.seen if getattr(x, "event", None).__class__ is AgentFinished)
                >= 2
            )
        )
        await turns_done(app)
        await pilot.pause()
        users = [t for r, t in app.main.transcript.messages() if r == "user"]
        assert users == ["first", "second"]
