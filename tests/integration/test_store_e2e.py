"""The store end to end: the real command against the mock, then list, resume and a crash."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, popen_gemtui, run_gemtui, write_fast_config


def test_headless_run_shows_up_in_sessions_list_json(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "Paris.", "usage": {"prompt": 11, "output": 2, "total": 13}})
    proc = run_gemtui(["-p", "What is the capital of France?"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    listed = run_gemtui(["sessions", "list", "--json"], env=env, cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert len(rows) == 1
    row = rows[0]
    assert set(row) == {
        "id",
        "title",
        "workspace",
        "provider",
        "model",
        "created",
        "updated",
        "messages",
        "tokens",
    }
    assert row["title"] == "What is the capital of France?"
    assert row["workspace"] == str(workspace.resolve())
    assert row["provider"] == "gemini"
    assert row["messages"] == 2
    assert row["tokens"] == 13
    assert row["created"].endswith("Z")
    assert "T" in row["created"]
    table = run_gemtui(["sessions", "list"], env=env, cwd=workspace)
    assert row["id"][:8] in table.stdout
    assert "capital of France" in table.stdout


def test_resume_sends_the_previous_history_plus_the_new_message(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "First answer, in three chunks.", "chunks": 3})
    assert run_gemtui(["-p", "first"], env=env, cwd=workspace).returncode == 0
    first_contents = mock_llm_thread.requests[-1].json["contents"]
    mock_llm_thread.enqueue({"text": "Second answer."})
    proc = run_gemtui(["-p", "second", "--resume", "latest"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    second_contents = mock_llm_thread.requests[-1].json["contents"]
    expected = [
        *first_contents,
        {"role": "model", "parts": [{"text": "First answer, in three chunks."}]},
        {"role": "user", "parts": [{"text": "second"}]},
    ]
    assert second_contents == expected
    rows = json.loads(run_gemtui(["sessions", "list", "--json"], env=env, cwd=workspace).stdout)
    assert len(rows) == 1
    assert rows[0]["messages"] == 4


def test_resume_of_an_unknown_id_exits_42(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "x", "--resume", "no-such-session"], env=env, cwd=workspace)
    assert proc.returncode == 42
    assert "no-such-session" in proc.stderr
    assert "gemtui sessions list" in proc.stderr
    assert not mock_llm_thread.requests


def test_kill_9_while_streaming_keeps_the_prompt_and_the_store_resumes(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    long_text = " ".join(f"word{i}" for i in range(400))
    mock_llm_thread.enqueue({"text": long_text, "chunks": 100, "tokens_per_second": 40})
    proc = popen_gemtui(["-p", "tell me a long story"], env=env, cwd=workspace)
    assert proc.stdout is not None
    first = proc.stdout.read(1)  # the answer is streaming
    assert first
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    db = isolated_home / "data" / "sessions.db"
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    rows = json.loads(run_gemtui(["sessions", "list", "--json"], env=env, cwd=workspace).stdout)
    assert len(rows) == 1
    assert rows[0]["title"] == "tell me a long story"
    assert rows[0]["messages"] == 1

    mock_llm_thread.enqueue({"text": "Resumed fine."})
    done = run_gemtui(["-p", "go on", "--resume", rows[0]["id"][:8]], env=env, cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Resumed fine."
    contents = mock_llm_thread.requests[-1].json["contents"]
    # The killed turn left no answer, so the new prompt joins the kept one in a single
    # user turn (turns alternate on the wire), the old prompt first.
    assert contents == [
        {"role": "user", "parts": [{"text": "tell me a long story"}, {"text": "go on"}]}
    ]
