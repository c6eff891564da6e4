"""What the screen says is what is true: a cancelled turn stops "streaming" and its tokens
count; a failure is noted once; the status says who is waiting; a retry counts down; a
refused call says why; a priced model shows its cost from the start."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from gemtui.bus.events import AgentFinished, ContentDelta, RequestRetrying, ToolCallStateChanged
from gemtui.testing import filler
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.bridge import BusEvent
from gemtui.tui.widgets.transcript_blocks import NoticeBlock
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done


def usage_text(app: Any) -> str:
    usage = app.main.usage
    return "\n".join(
        str(usage.query_one(f"#usage-{part}", Static).content) for part in ("numbers", "notes")
    )


def transcript_text(app: Any) -> str:
    transcript = app.main.transcript
    return "\n".join(transcript.render_line(y).text for y in range(transcript.size.height))


def _replace(path: str, old: str, new: str) -> dict[str, Any]:
    args = {"file_path": path, "instruction": "i", "old_string": old, "new_string": new}
    return {"name": "replace", "args": args}


async def test_a_cancelled_turn_stops_streaming_and_its_tokens_count(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": filler(400), "chunk_tokens": 2, "tokens_per_second": 40})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"talk", "enter")
        await seen.wait_event(ContentDelta)
        await seen.wait_for(
            lambda m: (
                len(
                    [
                        x
                        for x in seen.seen
                        if isinstance(x, BusEvent) and isinstance(x.event, ContentDelta)
                    ]
                )
                >= 5
            )
        )
        await pilot.press("escape")
        done = await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        assert str(done.reason) == "ABORTED"
        assert "streaming" not in usage_text(app)
        session = app.main.usage.session
        assert session.output > 0, "the cancelled call's output reached the totals"
        assert session.input > 0
        assert done.usage.output == session.output


async def test_a_failure_is_noted_once(mock_llm: MockLLMServer, workspace: Path) -> None:
    mock_llm.enqueue({"error": {"status": 400, "message": "The request was malformed here."}})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        notices = [
            b.text
            for b in app.main.transcript._blocks.blocks
            if isinstance(b, NoticeBlock) and "malformed here" in b.text
        ]
        assert len(notices) == 1, notices


async def test_the_status_says_approval_is_awaited_once_the_previous_call_ran(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "f.txt").write_text("one two\n")
    calls = [_replace("f.txt", "one", "ONE"), _replace("f.txt", "two", "TWO")]
    mock_llm.enqueue({"function_calls": calls}, {"text": "done"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"edit", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        assert app.main.status.activity == "approval"  # "? waiting for your approval"
        mark = len(seen.seen)
        app.main.approvals.focus()
        await pilot.press("a")
        await seen.wait_approvals(1, after=mark)
        await pilot.pause()
        assert app.main.status.activity == "approval"  # "? waiting for your approval"
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        assert app.main.status.activity == ""
        assert app.main.status.busy == ""
    assert (workspace / "f.txt").read_text() == "ONE TWO\n"


async def test_a_retry_wait_counts_down(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gemtui.tui.screens import op_drawing

    now = [time.monotonic()]
    monkeypatch.setattr(op_drawing, "_clock", lambda: now[0])
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        retry = RequestRetrying(attempt=1, max_attempts=3, wait=5.0, message="503")
        app.main.post_message(BusEvent(retry))
        await pilot.pause()
        assert app.main.status.busy == "retrying in 5s (attempt 2/3)"
        now[0] += 2.2
        deadline = time.monotonic() + 10
        while "in 3s" not in app.main.status.busy and time.monotonic() < deadline:
            await pilot.pause(0.05)  # the countdown's own timer redraws it
        assert app.main.status.busy == "retrying in 3s (attempt 2/3)"
        now[0] += 10
        deadline = time.monotonic() + 10
        while "in 3s" in app.main.status.busy and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert app.main.status.busy == "retrying now (attempt 2/3)"


async def test_refused_calls_say_why(mock_llm: MockLLMServer, workspace: Path) -> None:
    (workspace / "f.txt").write_text("one\n")
    mock_llm.enqueue(
        {"function_calls": [_replace("f.txt", "one", "1")]},
        {"text": "ok, not then"},
        {"function_calls": [_replace("f.txt", "one", "2")]},
        {"text": "planning instead"},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(220, 40), message_hook=seen) as pilot:  # the whole header
        await pilot.press(*"edit", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        app.main.approvals.focus()
        await pilot.press("r")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        assert "· rejected" in transcript_text(app)
        assert "· failed" not in transcript_text(app)
        app.set_approval_mode("plan")
        mark = len(seen.seen)
        app.main.prompt.focus()
        await pilot.press(*"edit again", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
        await pilot.pause()
        refused = [
            m.event.call
            for m in seen.seen[mark:]
            if isinstance(m, BusEvent) and isinstance(m.event, ToolCallStateChanged)
        ][-1]
        assert str(refused.refusal) == "denied"
        assert "· not allowed in plan mode" in transcript_text(app)
        assert "· failed" not in transcript_text(app)
    assert (workspace / "f.txt").read_text() == "one\n"


async def test_a_priced_model_shows_its_cost_before_the_first_turn(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace, model="gemini-2.5-flash"), workspace)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        text = usage_text(app)
        assert "no price known" not in text
        assert "cost $0.0000" in text
