"""Subagents in the TUI: /agents lists them with their sources, and a subagent's write
is offered for approval under the agent's name."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished
from gemtui.store import SessionStore
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from gemtui.tui.widgets.transcript_blocks import AnswerBlock, ToolBlock
from tests.integration.helpers import gemtui_env, run_gemtui, write_fast_config
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, engine_started, transcript_notices, turns_done
from tests.tui.test_resume_shows_what_happened import _settings_for

SCRIBE = """---
name: scribe
description: Writes files (SCRIBE-DESCRIPTION).
tools: [write_file]
---
You are SCRIBE-PROMPT.
"""


def _screen(app: Any) -> str:
    """The screen's text, row by row (the SVG's text runs put back together)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    pattern = r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>'
    for m in re.finditer(pattern, app.export_screenshot()):
        text = html.unescape(m[3]).replace("\xa0", " ")
        rows.setdefault(float(m[2]), []).append((float(m[1]), text))
    return "\n".join("".join(t for _, t in sorted(rows[y])) for y in sorted(rows))


def _cards(app: Any) -> dict[str, tuple[str | None, str]]:
    return {
        call_id: (block.agent, str(block.snapshot.state))
        for call_id, block in app.main.transcript._tools.items()
    }


def _notes(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


def _agent(home: Path, text: str) -> Path:
    path = home / "config" / "agents" / "scribe.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_agents_lists_sources_and_reload_reads_new_files(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.run_slash("/agents")
        await pilot.pause()
        listing = transcript_notices(app)[-1]  # in the conversation: a toast vanishes
        assert "codebase_investigator (builtin)" in listing
        assert "read_file, read_many_files" in listing
        assert "generalist (builtin) — all tools" in listing
        assert "scribe" not in listing
        path = _agent(isolated_home, SCRIBE)
        app.run_slash("/agents reload")
        await pilot.pause()
        assert "Agents reloaded: 3 available." in _notes(app)[-1]
        app.run_slash("/agents")
        await pilot.pause()
        assert f"scribe (user: {path}) — write_file" in transcript_notices(app)[-1]
        assert "scribe" in {d.name for d in app.session.chat.declarations}


async def test_subagent_write_is_offered_under_the_agents_name(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    _agent(isolated_home, SCRIBE)
    mock_llm.enqueue(
        {"function_calls": [{"name": "scribe", "args": {"task": "write a"}, "id": "p1"}]},
        {
            "text": "CHILD-CHATTER",
            "function_calls": [
                {"name": "write_file", "args": {"file_path": "a.txt", "content": "A"}, "id": "w1"}
            ],
        },
        {"function_calls": [{"name": "complete_task", "args": {"output": {"report": "ok"}}}]},
        {"text": "Parent answer."},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"delegate", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        title = str(app.main.approvals.query_one("#approval-title", Static).content)
        assert title.startswith("Approve write_file for agent scribe")
        live = app.main.transcript._tools["p1"].progress
        assert (live.turns, live.current) == (1, "write_file")  # the card shows the agent's work
        waiting = _screen(app)
        assert "now write_file" in waiting
        assert "┊ CHILD-CHATTER" in waiting  # its words on its card while it works
        await pilot.press("f8", "1")  # allow once
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        answers = [b.text for b in app.main.transcript._blocks.blocks if isinstance(b, AnswerBlock)]
        cards = {
            b.call_id: b.agent
            for b in app.main.transcript._blocks.blocks
            if isinstance(b, ToolBlock)
        }
        screen = _screen(app)
        by_agent = dict(app.main.usage.by_agent)
        app.main.transcript.toggle_tool("p1")  # expanded: the agent's words again
        await pilot.pause()
        expanded = _screen(app)
    assert (workspace / "a.txt").read_text() == "A"
    assert answers == ["Parent answer."]  # the subagent's text is not the conversation's
    assert cards == {"p1": None, "p1/w1": "scribe"}  # the subagent's card names it
    assert "↳ scribe ›" in screen
    assert "⋯ 2 turns · 1 call ·" in screen
    assert "CHILD-CHATTER" not in screen  # folded once it is done
    assert "┊ CHILD-CHATTER" in expanded
    assert set(by_agent) == {"scribe"}
    assert by_agent["scribe"][0] > 0
    assert "scribe: " in screen  # the usage pane splits tokens by agent


async def test_agents_run_asks_the_model_to_delegate(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    mock_llm.enqueue({"text": "sure"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        app.run_slash("/agents run nobody do it")
        await pilot.pause()
        assert "Usage: /agents run NAME TASK" in _notes(app)[-1]
        app.run_slash("/agents run codebase_investigator find the config loader")
        await seen.wait_event(AgentFinished)
    sent = mock_llm.requests[0].json["contents"][-1]["parts"][0]["text"]
    assert sent.startswith("find the config loader")
    assert "call the codebase_investigator tool" in sent
    assert len(mock_llm.requests) == 1


async def test_resume_shows_the_subagents_calls_under_its_card(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    (workspace / "notes.txt").write_text("N\n")
    mock_llm.enqueue(
        {"function_calls": [{"name": "generalist", "args": {"task": "read"}, "id": "p1"}]},
        {"function_calls": [{"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "c1"}]},
        {"function_calls": [{"name": "complete_task", "args": {"output": {"report": "ok"}}}]},
        {"text": "Done."},
    )
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*"delegate", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        live = _cards(app)
        assert app.session is not None
        session_id = app.session.id
    app.close_store()
    assert live == {"p1": (None, "success"), "p1/c1": ("generalist", "success")}

    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace, resume=session_id))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        for _ in range(3):
            await pilot.pause()
        resumed = _cards(app)
        screen = _screen(app)
    app.close_store()
    assert resumed == live
    assert "↳ generalist ›" in screen


async def test_a_delegation_run_headless_resumes_with_its_card_expanding_into_the_agents_words(
    mock_llm_thread: MockLLMServer,
    workspace: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recorded by the real ``gemtui -p``, resumed in the TUI: the delegation card holds
    its agent's turns and words, folded, and Ctrl+O expands it into them, as live."""
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    (workspace / "notes.txt").write_text("NOTES-BODY\n")
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "generalist", "args": {"task": "read"}, "id": "p1"}]},
        {
            "text": "Looking for the KOALA-WORD notes first.",
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "c1"}
            ],
            "usage": {"prompt": 30, "output": 5},
        },
        {
            "text": "Found them; reporting.",
            "function_calls": [
                {"name": "complete_task", "args": {"output": {"report": "ok"}}, "id": "c2"}
            ],
            "usage": {"prompt": 40, "output": 6},
        },
        {"text": "Parent answer."},
    )
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "delegate"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    with SessionStore() as store:
        (info,) = store.list_sessions()

    app = build_app(
        _settings_for(mock_llm_thread.url), RunOptions(workspace=workspace, resume=info.id)
    )
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        for _ in range(3):
            await pilot.pause()
        folded = _screen(app)
        cards = _cards(app)
        answers = [b.text for b in app.main.transcript._blocks.blocks if isinstance(b, AnswerBlock)]
        assert app.session is not None
        history = json.dumps([c.to_wire() for c in app.session.chat.history])
        by_agent = dict(app.main.usage.by_agent)
        per_turn = list(app.main.usage.per_turn)
        app.main.transcript.focus()
        await pilot.press("ctrl+o")  # the most recent card with something folded: p1
        await pilot.pause()
        expanded = _screen(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        folded_again = _screen(app)
    app.close_store()
    assert cards == {"p1": (None, "success"), "p1/c1": ("generalist", "success")}
    assert answers == ["Parent answer."]  # the agent's words are its card's, not answers
    assert "KOALA-WORD" not in history  # nor the conversation's model history
    assert "⋯ 2 turns · 1 call · 81 tokens" in folded
    assert "KOALA-WORD" not in folded
    assert "┊ Looking for the KOALA-WORD notes first." in expanded
    assert "┊ Found them; reporting." in expanded
    assert "KOALA-WORD" not in folded_again
    assert by_agent["generalist"][0] == 81  # the usage pane's agent line comes back too
    assert len(per_turn) == 2  # and the conversation's turns stay its own


REPORT = {
    "summary": "The parser lives in one module.",
    "relevant_files": [{"path": "src/parse.py", "why": "where tokens are read"}],
    "next_steps": ["add a test for empty input"],
}


async def test_an_investigation_report_shows_as_summary_and_files_live_and_resumed(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reproduced: the delegation card showed the report as raw JSON; the model still
    gets the JSON."""
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "codebase_investigator", "args": {"task": "look"}, "id": "p1"}
            ]
        },
        {"function_calls": [{"name": "complete_task", "args": {"output": REPORT}}]},
        {"text": "Done."},
    )
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*"delegate", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        app.main.transcript.toggle_tool("p1")
        await pilot.pause()
        live = _screen(app)
        assert app.session is not None
        session_id = app.session.id
    app.close_store()
    sent = json.dumps(mock_llm.requests[-1].json)
    assert "relevant_files" in sent  # the model got the structured report
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace, resume=session_id))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        for _ in range(3):
            await pilot.pause()
        app.main.transcript.toggle_tool("p1")
        await pilot.pause()
        resumed = _screen(app)
    app.close_store()
    for screen in (live, resumed):
        assert "│ The parser lives in one module." in screen
        assert "│ Files:" in screen
        assert "│   src/parse.py - where tokens are read" in screen
        assert "│   - add a test for empty input" in screen
        assert '"relevant_files"' not in screen
        assert '"summary"' not in screen
