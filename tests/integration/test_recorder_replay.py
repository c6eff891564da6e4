"""One way out: the bus says everything the store needs.

A whole conversation runs live against the mock model — tool calls, a compression, a
resume and a fork — with the real recorder saving it into sessions.db, while a plain
subscriber keeps every event each session published. Replaying those events into an
empty store with a fresh recorder must give the same rows: the recorder knows nothing
but the bus (it imports nothing from chat or agent, which import-linter checks).
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.assembly import Assembled, RunOptions, build_session
from gemtui.bus import EventBus
from gemtui.bus.events import Event
from gemtui.config.settings import Settings
from gemtui.store import SessionRecorder, SessionStore
from gemtui.testing.mockllm import MockLLMServer

Recording = list[tuple[str, list[Event]]]


def _settings(url: str) -> Settings:
    return Settings.model_validate(
        {
            "general": {"provider": "mock", "approval_mode": "yolo"},
            "providers": {"mock": {"kind": "gemini", "base_url": url}},
            "network": {"max_attempts": 1, "stream_retry_delays": []},
        }
    )


async def _run(
    settings: Settings, options: RunOptions, recording: Recording, prompts: list[str], **kw: Any
) -> Assembled:
    built = build_session(settings, options, trusted=False)
    events: list[Event] = []
    built.session.bus.subscribe(events.append)
    recording.append((built.session.id, events))
    built.record()
    built.session.start()
    for prompt in prompts:
        await built.session.send(prompt)
    if kw.get("compress"):
        await built.session.compress()
    return built


async def _close(built: Assembled) -> None:
    await built.session.aclose()
    built.stop_recording()


def _rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Everything the recorder writes, without wall-clock times and row ids.

    The fork itself is made by the session browser (``store.fork``), which is not a
    session and publishes nothing: the replay forks the same way at the same point.
    """
    with sqlite3.connect(db) as c:
        return {
            "sessions": c.execute(
                "SELECT id, workspace, provider, model, message_count, turns, tokens_input,"
                " tokens_output, tokens_total, epoch"
                " FROM sessions ORDER BY id"
            ).fetchall(),
            "titles": c.execute("SELECT id, title, parent_id FROM sessions ORDER BY id").fetchall(),
            "messages": c.execute(
                "SELECT session_id, epoch, idx, role, content, text FROM messages"
                " ORDER BY session_id, epoch, idx"
            ).fetchall(),
            "tool_calls": c.execute(
                "SELECT session_id, call_id, name, args, state, decision, output, error"
                " FROM tool_calls ORDER BY id"
            ).fetchall(),
            "usage": c.execute(
                "SELECT session_id, prompt_id, model, input, output, thoughts, cached, total,"
                " parent_call FROM usage ORDER BY id"
            ).fetchall(),
            "subagent_messages": c.execute(
                "SELECT session_id, parent_call, agent, idx, role, content, text"
                " FROM subagent_messages ORDER BY id"
            ).fetchall(),
        }


async def test_replaying_the_bus_into_an_empty_store_gives_the_live_database(
    mock_llm: MockLLMServer,
    workspace: Path,
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    settings = _settings(mock_llm.url)
    options = RunOptions(workspace=workspace)
    recording: Recording = []

    # 1. a tool loop, then a compression
    mock_llm.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "r1"}]},
        {"text": "It says alpha and beta.", "usage": {"prompt": 50}},
        {"text": "Two lines.", "usage": {"prompt": 60}},
        {"text": "SUMMARY: notes.txt holds alpha and beta."},
    )
    first = await _run(
        settings, options, recording, ["read notes.txt", "how many lines?"], compress=True
    )
    first_id = first.session.id
    await _close(first)
    first.close()

    # 2. resume it and go on with a delegation: the subagent's history is stored too
    report = {"name": "complete_task", "args": {"output": {"report": "only notes"}}, "id": "d1"}
    mock_llm.enqueue(
        {"function_calls": [{"name": "generalist", "args": {"task": "list"}, "id": "g1"}]},
        {
            "text": "Listing.",
            "function_calls": [{"name": "list_directory", "args": {"dir_path": "."}, "id": "l1"}],
            "usage": {"prompt": 30},
        },
        {"function_calls": [report], "usage": {"prompt": 40}},
        {"text": "Only notes.txt."},
    )
    resumed = await _run(settings, replace(options, resume=first_id), recording, ["list files"])
    assert resumed.session.id == first_id
    assert resumed.store is not None
    fork_id = resumed.store.fork(first_id)
    await _close(resumed)
    resumed.close()

    # 3. open the fork and continue it
    mock_llm.enqueue({"text": "The fork goes its own way."})
    forked = await _run(settings, replace(options, resume=fork_id), recording, ["and now?"])
    await _close(forked)
    forked.close()

    live = _rows(isolated_home / "data" / "sessions.db")
    assert len(live["sessions"]) == 2
    assert {r[2] for r in live["tool_calls"]} == {"read_file", "generalist", "list_directory"}
    stories = {(r[0], r[1], r[2]) for r in live["subagent_messages"]}
    assert stories == {(first_id, "g1", "generalist"), (fork_id, "g1", "generalist")}
    assert {r[-1] for r in live["usage"]} == {None, "g1"}
    assert max(r[-1] for r in live["sessions"]) >= 1, "the compression started a new epoch"

    replayed_db = tmp_path / "replayed.db"
    store = SessionStore(replayed_db)
    try:
        for session_id, events in recording:
            if session_id == fork_id:  # the browser forked before the fork was opened
                store.fork(first_id, new_id=fork_id)
            bus = EventBus(session_id)
            recorder = SessionRecorder(store, bus)
            for event in events:
                bus.publish(event)
            recorder.close()
            assert recorder.failures == 0
    finally:
        store.close()
    replayed = _rows(replayed_db)
    for table, rows in live.items():
        assert replayed[table] == rows, table
