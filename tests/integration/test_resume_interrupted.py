"""Resume after ``kill -9`` during a tool call sends a request every API accepts (E.2).

The real command runs ``sleep 60`` under ``--yolo`` against the mock; once the call is in
the store and the command is running, the process is killed with SIGKILL. ``--resume
latest`` must then answer the dangling call with "interrupted" (same id, same name) and
send a request the conformance suite's checks accept, on every wire format.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from gemtui.store.resume import INTERRUPTED_MESSAGE
from gemtui.testing import MockLLMServer
from tests.support.file_keyring import BACKEND, ENV

from .helpers import gemtui_env, popen_gemtui, run_gemtui, write_fast_config
from .test_conformance import ADAPTERS, Harness, assert_valid_requests

FLAGS = {
    "gemini": [],
    "openai_compat": ["--provider", "openai", "-m", "qwen3-coder"],
    "anthropic": ["--provider", "anthropic"],
    "text_tools": ["--provider", "openai", "-m", "qwen3-coder", "--text-tools"],
    "code_assist": ["--provider", "code-assist"],
    "text_tools_gemini": ["--text-tools"],
    "text_tools_anthropic": ["--provider", "anthropic", "--text-tools"],
}


def _env(adapter: str, home: Path, srv: MockLLMServer) -> dict[str, str]:
    """The keys the conformance checks expect in each wire's headers."""
    url = srv.url
    env = gemtui_env(home, url, key="gem-key")
    if adapter == "code_assist":  # signed in: the mock's tokens in a real file keyring
        ring = home.parent / "keyring.json"
        ring.write_text(json.dumps({"gemtui/google-oauth": json.dumps(_fields(srv))}))
        env |= {"CODE_ASSIST_ENDPOINT": url, "PYTHON_KEYRING_BACKEND": BACKEND, ENV: str(ring)}
        env["PYTHONPATH"] = os.pathsep.join([str(Path.cwd()), *sys.path])
    if adapter in ("openai_compat", "text_tools"):
        env["OPENAI_BASE_URL"] = f"{url}/v1"
        env["OPENAI_API_KEY"] = "oai-key"
    elif adapter in ("anthropic", "text_tools_anthropic"):
        env["ANTHROPIC_BASE_URL"] = url
        env["ANTHROPIC_API_KEY"] = "ant-key"
    return env


def _fields(srv: MockLLMServer) -> dict[str, object]:
    t = srv.account.grant()
    return {
        "access_token": t.access_token,
        "refresh_token": t.refresh_token,
        "expires_at": t.expires_at,
        "id_token": t.id_token,
        "email": t.email,
    }


def _wait_until(condition: object, what: str, timeout: float = 30.0) -> None:
    """Poll a condition with a deadline (the process is doing real work meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting until {what}")


def _stored_messages(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    except sqlite3.Error:
        return 0


RESUMED = [a for a in ADAPTERS if a != "vertex"]
"""Every wire; Vertex AI sends Gemini's body (its own credentials need a service account,
so its end to end is in test_vertex.py)."""


@pytest.mark.parametrize("adapter", RESUMED)
def test_kill_9_during_a_tool_call_resumes_with_the_call_answered(
    adapter: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = _env(adapter, isolated_home, mock_llm_thread)
    harness = Harness(adapter, mock_llm_thread)
    command = "echo $$ > running.pid; sleep 60"
    mock_llm_thread.enqueue(harness.calls_step([("run_shell_command", {"command": command})]))
    proc = popen_gemtui(
        ["-p", "run the slow thing", "--yolo", *FLAGS[adapter]], env=env, cwd=workspace
    )
    pid_file = workspace / "running.pid"
    db = isolated_home / "data" / "sessions.db"
    try:
        _wait_until(lambda: pid_file.exists() and pid_file.read_text().strip(), "the tool runs")
        _wait_until(lambda: _stored_messages(db) >= 2, "the call is stored")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        if pid_file.exists() and pid_file.read_text().strip():  # the orphaned sleep
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(pid_file.read_text()), signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL

    mock_llm_thread.enqueue({"text": "Carrying on."})
    resumed = run_gemtui(
        ["--resume", "latest", "-p", "continue", *FLAGS[adapter]], env=env, cwd=workspace
    )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "Carrying on."
    assert len(harness.generation_requests()) == 2
    assert_valid_requests(harness)  # every call answered, per the wire's own rules
    last = json.dumps(harness.generation_requests()[-1].json)
    assert "interrupted before it finished" in last
    assert INTERRUPTED_MESSAGE[:40] in last
    if adapter == "gemini":
        contents = harness.generation_requests()[-1].json["contents"]
        call = contents[1]["parts"][0]["functionCall"]
        answer = contents[2]["parts"][0]["functionResponse"]
        assert (answer["id"], answer["name"]) == (call["id"], call["name"])
        assert answer["response"] == {"error": INTERRUPTED_MESSAGE}
        # the interrupted call's answer and the new prompt: one user turn, answer first
        assert contents[-1]["role"] == "user"
        assert contents[-1]["parts"][-1] == {"text": "continue"}
        assert [c["role"] for c in contents] == ["user", "model", "user"]

    # the answer was saved too: a second resume sends the same, whole history
    mock_llm_thread.enqueue({"text": "Still here."})
    again = run_gemtui(
        ["--resume", "latest", "-p", "again", *FLAGS[adapter]], env=env, cwd=workspace
    )
    assert again.returncode == 0, again.stderr
    assert_valid_requests(harness)
    assert json.dumps(harness.generation_requests()[-1].json).count("interrupted before") == 1
