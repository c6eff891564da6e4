"""Pilot end-to-end tests: the real Session against the mock LLM server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.bus.events import (
    AgentFinished,
    ContentDelta,
    TerminateReason,
    ToolCallState,
    ToolCallStateChanged,
)
from gemtui.testing import filler
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.diff_view import DiffView
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, replace_step, turns_done


def _function_responses(request_json: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        part["functionResponse"]
        for content in request_json["contents"]
        for part in content.get("parts", [])
        if "functionResponse" in part
    ]


async def test_a_typed_prompt_gets_its_answer_rendered(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue(
        {"text": "Hello from **the model**.", "chunks": 3, "thought": "**Plan** say hi"}
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"hi there", "enter")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert ("user", "hi there") in app.main.transcript.messages()
        answers = [t for role, t in app.main.transcript.messages() if role != "user"]
        assert answers
        assert "Hello from **the model**." in answers[-1]
        assert app.main.thoughts.groups()[0][0] == "Plan"
        assert app.main.usage.session.output > 0
    request = mock_llm.requests[-1].json
    assert request["contents"][-1]["parts"][0]["text"] == "hi there"


async def test_approving_a_replace_by_key_changes_the_file_and_answers_the_model(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    target = workspace / "greeting.txt"
    target.write_text("hello world\n")
    mock_llm.enqueue(replace_step("greeting.txt", "world", "gemtui"), {"text": "Renamed."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"rename it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        queue = app.main.approvals
        assert app.focused is queue, "focus moves to the queue when a call arrives"
        diff = queue.query_one(DiffView).diff
        assert "-hello world" in diff
        assert "+hello gemtui" in diff
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert app.focused is app.main.prompt, "focus returns to the prompt"
        assert not queue.pending()
    assert target.read_text() == "hello gemtui\n"
    [response] = _function_responses(mock_llm.requests[-1].json)
    assert response["name"] == "replace"
    assert "error" not in response["response"]


async def test_rejecting_by_key_leaves_the_file_and_tells_the_model(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    target = workspace / "greeting.txt"
    target.write_text("hello world\n")
    mock_llm.enqueue(replace_step("greeting.txt", "world", "gemtui"), {"text": "Fine."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"rename it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        await pilot.press("f8", "r")  # on purpose, then the letter
        await seen.wait_event(AgentFinished)
        await pilot.pause()
    assert target.read_text() == "hello world\n"
    [response] = _function_responses(mock_llm.requests[-1].json)
    assert response["response"].get("error")


async def test_approval_keys_do_nothing_while_typing_in_the_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    target = workspace / "greeting.txt"
    target.write_text("hello world\n")
    mock_llm.enqueue(replace_step("greeting.txt", "world", "gemtui"), {"text": "ok"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"rename it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        app.main.prompt.focus()
        await pilot.press("a", "1", "r")
        await pilot.pause()
        assert app.main.prompt.text == "a1r"
        assert len(app.main.approvals.pending()) == 1
        assert target.read_text() == "hello world\n"
        await pilot.press("f8", "r")
        await seen.wait_event(AgentFinished)


async def test_escape_mid_stream_cancels_and_keeps_the_partial_answer(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    words = " ".join(f"word{i}" for i in range(200))
    mock_llm.enqueue({"text": words, "chunk_tokens": 2, "tokens_per_second": 40})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"talk", "enter")
        await seen.wait_event(ContentDelta)
        await pilot.pause()
        await pilot.press("escape")
        finished = await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        assert finished.reason == TerminateReason.ABORTED
        kept = [t for role, t in app.main.transcript.messages() if role != "user"]
        assert kept
        assert kept[-1].startswith("word0")
        assert len(kept[-1]) < len(words)
        assert not app.turn_running


async def test_prompts_typed_during_a_turn_are_queued_and_sent_in_order(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue(
        # the first answer is held after its first chunk until "two" is queued
        {"text": filler(40, "first"), "chunks": 4, "fault": "hold", "after_chunks": 1},
        {"text": "second answer"},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"one", "enter")
        await seen.wait_event(ContentDelta)
        await pilot.press(*"two", "enter")
        assert list(app.queued) == ["two"]
        assert len(mock_llm.requests) == 1, "two waits for the first turn"
        mock_llm.release()
        first = await seen.wait_event(AgentFinished)
        index = seen.seen.index(next(m for m in seen.seen if getattr(m, "event", None) is first))
        await seen.wait_event(AgentFinished, after=index + 1)
        await turns_done(app)
        await pilot.pause()
    texts = [r.json["contents"][-1]["parts"][0]["text"] for r in mock_llm.requests]
    assert texts == ["one", "two"]


async def test_yolo_runs_the_edit_without_asking(mock_llm: MockLLMServer, workspace: Path) -> None:
    target = workspace / "greeting.txt"
    target.write_text("hello world\n")
    mock_llm.enqueue(replace_step("greeting.txt", "world", "yolo"), {"text": "done"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press("ctrl+y", "f8", "y")  # asked, answered on purpose, confirmed
        assert app.session is not None
        assert app.session.approval_mode == "yolo"
        await pilot.press(*"go", "enter")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        states = [
            m.event.call.state
            for m in seen.seen
            if hasattr(m, "event") and isinstance(m.event, ToolCallStateChanged)
        ]
        assert ToolCallState.AWAITING_APPROVAL not in states
    assert target.read_text() == "hello yolo\n"
