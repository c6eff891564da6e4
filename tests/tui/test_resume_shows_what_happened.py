"""Resuming shows what happened: the turns before a compression, no internal summary posing
as the person's words, tool cards with their arguments, the usage so far; and opening a
session to look at it changes nothing stored about it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished, HistoryCompressed
from gemtui.config.settings import Settings
from gemtui.store import SessionStore
from gemtui.testing import filler
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from gemtui.tui.widgets.transcript_blocks import AnswerBlock, NoticeBlock, ToolBlock
from tests.integration.helpers import gemtui_env, run_gemtui, write_fast_config
from tests.tui.helpers import Messages, engine_started, turns_done


def _settings_for(url: str) -> Settings:
    return Settings.model_validate(
        {
            "general": {"provider": "mock"},
            "providers": {
                "mock": {
                    "kind": "gemini",
                    "base_url": url,
                    "models": ["gemini-2.5-pro", "gemini-2.5-flash"],
                },
            },
            "network": {"max_attempts": 1, "stream_retry_delays": []},
        }
    )


async def _record_a_compressed_session(mock_llm: MockLLMServer, workspace: Path) -> str:
    (workspace / "notes.txt").write_text("alpha beta\n")
    read = {"name": "read_file", "args": {"file_path": "notes.txt"}}
    mock_llm.enqueue(
        {"function_calls": [read], "usage": {"prompt": 40, "output": 7}},
        {"text": "The notes say alpha beta.", "usage": {"prompt": 60, "output": 9}},
        {"text": filler(40, "second"), "usage": {"prompt": 90, "output": 30}},
        {"count_tokens": 5000},
        {"text": "The person read notes.txt (alpha beta) and asked twice."},
        {"count_tokens": 100},
    )
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*"read my notes", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        mark = len(seen.seen)
        await pilot.press(*"and again, at length", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
        app.run_slash("/compress")
        await seen.wait_event(HistoryCompressed)
        compressing = [w for w in app.workers if w.group == "compress"]
        if compressing:  # an empty list would mean "every worker" to Textual
            await app.workers.wait_for_complete(compressing)
        assert app.session is not None
        session_id = app.session.id
    app.close_store()
    return session_id


async def test_a_resumed_compressed_session_shows_its_whole_story(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    session_id = await _record_a_compressed_session(mock_llm, workspace)
    with SessionStore() as store:
        before = store.get(session_id)
        assert before is not None
        stored_usage = store.usage(session_id)
    assert len(stored_usage) == 4  # three turns, and compression's own model call

    app = build_app(
        _settings_for(mock_llm.url),
        RunOptions(workspace=workspace, resume=session_id, model="gemini-2.5-flash"),
    )
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        for _ in range(3):
            await pilot.pause()
        transcript = app.main.transcript
        messages: list[tuple[str, str]] = transcript.messages()
        users = [t for r, t in messages if r == "user"]
        assert users == ["read my notes", "and again, at length"], users
        assert not any("conversation_summary" in t for _, t in messages)
        assert not any("Thanks for the additional context" in t for _, t in messages)
        blocks: list[Any] = transcript._blocks.blocks
        notices = [b.text for b in blocks if isinstance(b, NoticeBlock)]
        assert any("compressed" in n.lower() for n in notices), notices
        (card,) = [b for b in blocks if isinstance(b, ToolBlock)]
        assert "notes.txt" in card.snapshot.description
        usage = app.main.usage
        # the three turns (190 in, 46 out) and compression's summary call (246, 9): every
        # model call counts (issue 37)
        assert (usage.session.input, usage.session.output) == (436, 55)
        assert len(usage.per_turn) == 4  # each model call, the summary one too
    app.close_store()
    with SessionStore() as store:
        after = store.get(session_id)
    assert after is not None
    assert (after.model, after.updated) == (before.model, before.updated), (
        "looking at a session is not using it"
    )


async def test_a_session_resumed_again_shows_each_turn_once(
    mock_llm_thread: MockLLMServer,
    workspace: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recorded by the real ``gemtui -p`` (its call carries the placeholder signature a
    request adds), resumed, then resumed again: the second time drew every turn twice."""
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    write_fast_config(isolated_home)
    (workspace / "notes.txt").write_text("alpha\n")
    read = {"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "c1"}
    mock_llm_thread.enqueue({"function_calls": [read]}, {"text": "The notes say alpha."})
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "read them", "--approval-mode", "yolo"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    with SessionStore() as store:
        (info,) = store.list_sessions()
    answers, tools = [], []
    for _ in range(2):
        options = RunOptions(workspace=workspace, resume=info.id)
        app = build_app(_settings_for(mock_llm_thread.url), options)
        assert isinstance(app, GemtuiApp)
        seen = Messages()
        async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
            await engine_started(app, seen)
            await pilot.pause()
            blocks = app.main.transcript._blocks.blocks
            answers.append([b.text for b in blocks if isinstance(b, AnswerBlock)])
            tools.append(sum(isinstance(b, ToolBlock) for b in blocks))
        app.close_store()
    assert answers == [["The notes say alpha."]] * 2
    assert tools == [1, 1]
