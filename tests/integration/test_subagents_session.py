"""Subagents in an interactive session against the mock: approvals name the agent, a
cancel of the parent ends the child, two agents called at once run side by side."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from gemtui.bus import (
    ApprovalDecision,
    ContentDelta,
    Decision,
    Event,
    TerminateReason,
    ToolCallState,
    ToolCallStateChanged,
)
from gemtui.config.paths import config_dir
from gemtui.testing import MockLLMServer, RecordedRequest, filler

from .conftest import SessionFactory, history_is_valid

SCRIBE = """---
name: scribe
description: Writes files.
tools: [write_file]
---
You are SCRIBE-PROMPT.
"""


def _agent(name: str, text: str) -> None:
    folder = config_dir() / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text, encoding="utf-8")


def _call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"function_calls": [{"name": name, "args": args, "id": call_id}]}


def _done(report: str) -> dict[str, Any]:
    return _call("complete_task", {"output": {"report": report}}, "done")


async def test_subagent_write_asks_approval_naming_the_agent(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    _agent("scribe", SCRIBE)
    mock_llm.enqueue(
        _call("scribe", {"task": "write a.txt"}, "p1"),
        _call("write_file", {"file_path": "a.txt", "content": "hello"}, "w1"),
        _done("wrote a.txt"),
        {"text": "finished"},
    )
    session = make_session(interactive=True)
    asked: list[tuple[str | None, str, str]] = []

    def approve(event: Event) -> None:
        if not isinstance(event, ToolCallStateChanged):
            return
        call = event.call
        if call.state is ToolCallState.AWAITING_APPROVAL and call.correlation_id:
            agent = call.confirmation.agent if call.confirmation else None
            asked.append((agent, event.parent_id, call.call_id))
            session.bus.decide(call.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE))

    session.bus.subscribe(approve)
    done = await session.send("delegate")
    assert done.reason == TerminateReason.GOAL
    assert done.text == "finished"
    assert asked == [("scribe", "p1", "p1/w1")]  # only the write asked; the delegation did not
    assert (workspace / "a.txt").read_text() == "hello"
    assert history_is_valid(session.chat.history)


async def test_rejected_subagent_write_is_not_written_and_the_report_says_so(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    _agent("scribe", SCRIBE)
    mock_llm.enqueue(
        _call("scribe", {"task": "write a.txt"}, "p1"),
        _call("write_file", {"file_path": "a.txt", "content": "hello"}, "w1"),
        _done("REJECTED-REPORT"),
        {"text": "finished"},
    )
    session = make_session(interactive=True)

    def reject(event: Event) -> None:
        if isinstance(event, ToolCallStateChanged) and event.call.correlation_id:
            session.bus.decide(event.call.correlation_id, Decision(ApprovalDecision.REJECT))

    session.bus.subscribe(reject)
    await session.send("delegate")
    assert not (workspace / "a.txt").exists()
    child_answer = mock_llm.requests[2].json["contents"][-1]["parts"][0]["functionResponse"]
    assert "rejected" in child_answer["response"]["error"]
    parent_answer = mock_llm.requests[3].json["contents"][-1]["parts"][0]["functionResponse"]
    assert parent_answer["id"] == "p1"
    assert "REJECTED-REPORT" in str(parent_answer["response"])


async def test_cancel_of_the_parent_ends_the_child_at_once(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        _call("generalist", {"task": "talk a lot"}, "p1"),
        # the child's answer is held after its first chunk and never released
        {"text": filler(40, "slow"), "chunks": 4, "fault": "hold", "after_chunks": 1},
    )
    session = make_session(interactive=True)
    cancelled: list[bool] = []

    def cancel_on_child_text(event: Event) -> None:
        if isinstance(event, ContentDelta) and event.parent_id == "p1" and not cancelled:
            cancelled.append(True)
            asyncio.get_running_loop().call_soon(session.cancel)

    events: list[Event] = []
    session.bus.subscribe(events.append)
    session.bus.subscribe(cancel_on_child_text)
    done = await asyncio.wait_for(session.send("go"), 30)  # only the cancel can end it
    assert cancelled, "the child streamed"
    assert done.reason == TerminateReason.ABORTED
    states = [
        e.call.state
        for e in events
        if isinstance(e, ToolCallStateChanged) and e.call.call_id == "p1"
    ]
    assert states[-1] is ToolCallState.CANCELLED
    assert len(mock_llm.requests) == 2  # no model call after the cancel, child's or parent's
    assert history_is_valid(session.chat.history)


async def test_two_subagents_called_at_once_run_side_by_side(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    # each child's first answer is held until both children have asked: one after the
    # other, the second would never ask and the run would never end
    slow = {"text": filler(60, "w"), "fault": "hold"}
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "codebase_investigator", "args": {"task": "one"}, "id": "a"},
                {"name": "generalist", "args": {"task": "two"}, "id": "b"},
            ]
        },
        slow,
        slow,
        _done("first"),
        _done("second"),
        {"text": "both done"},
    )

    def release_when_both_asked(_request: RecordedRequest) -> None:
        if len(mock_llm.requests) == 3:  # the parent's, then both children's first
            mock_llm.release()
            mock_llm.release()

    mock_llm.on_request = release_when_both_asked
    session = make_session(interactive=False)
    done = await asyncio.wait_for(session.send("go"), 60)
    assert done.text == "both done"


async def test_side_by_side_subagents_change_the_workspace_one_call_at_a_time(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    def shell(tag: str) -> dict[str, Any]:
        command = f"echo start-{tag} >> log.txt; sleep 0.4; echo end-{tag} >> log.txt"
        return _call("run_shell_command", {"command": command}, f"s{tag}")

    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "generalist", "args": {"task": "one"}, "id": "a"},
                {"name": "generalist", "args": {"task": "two"}, "id": "b"},
            ]
        },
        shell("1"),
        shell("2"),
        _done("first"),
        _done("second"),
        {"text": "both done"},
    )
    session = make_session(approval_mode="yolo")
    done = await session.send("go")
    assert done.text == "both done"
    lines = (workspace / "log.txt").read_text().split()
    assert sorted(lines) == ["end-1", "end-2", "start-1", "start-2"]
    # never two commands at once: each ends before the other starts
    assert lines[0][6:] == lines[1][4:], lines
    assert lines[2][6:] == lines[3][4:], lines


async def test_cancel_while_a_subagent_waits_for_approval_withdraws_the_request(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    _agent("scribe", SCRIBE)
    mock_llm.enqueue(
        _call("scribe", {"task": "write a.txt"}, "p1"),
        _call("write_file", {"file_path": "a.txt", "content": "hello"}, "w1"),
    )
    session = make_session(interactive=True)
    events: list[Event] = []

    def cancel_when_asked(event: Event) -> None:
        events.append(event)
        if isinstance(event, ToolCallStateChanged) and event.call.correlation_id:
            asyncio.get_running_loop().call_soon(session.cancel)

    session.bus.subscribe(cancel_when_asked)
    done = await asyncio.wait_for(session.send("delegate"), 10)
    assert done.reason == TerminateReason.ABORTED
    last = {e.call.call_id: e.call.state for e in events if isinstance(e, ToolCallStateChanged)}
    assert last == {"p1": ToolCallState.CANCELLED, "p1/w1": ToolCallState.CANCELLED}
    assert session.bus.pending_approvals == []
    assert not (workspace / "a.txt").exists()
    assert len(mock_llm.requests) == 2
    assert history_is_valid(session.chat.history)
