"""``gemtui agents [--json]`` lists a headless run started in another process.

The run's first answer is held by the mock, so while ``gemtui agents`` looks the run is
really mid-prompt: it must be listed as working with its pid, task and model; once let
go, as done with its tokens. A run killed mid-prompt (its row still says working) is
listed as gone, never as working forever. Another folder's runs are not listed.
"""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer
from gemtui.testing.mock_http import RecordedRequest

from .helpers import FAST_NETWORK, gemtui_env, popen_gemtui, run_gemtui

PATIENT = FAST_NETWORK.replace("read_timeout = 2.0", "read_timeout = 3600.0")
"""A held answer is let go by the test, not by a clock: no read timeout cuts it first."""


def write_patient_config(home: Path, extra: str = "") -> None:
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(PATIENT + extra, encoding="utf-8")


def _asked(server: MockLLMServer) -> threading.Event:
    """Set once the model was asked (the run's row is saved before that)."""
    asked = threading.Event()

    def on_request(req: RecordedRequest) -> None:
        if "GenerateContent" in req.path:
            asked.set()

    server.on_request = on_request
    return asked


def _agents(home: Path, cwd: Path, *flags: str) -> list[dict[str, Any]]:
    proc = run_gemtui(["agents", "--json", *flags], env=gemtui_env(home), cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, Any]] = json.loads(proc.stdout)
    return rows


def test_a_headless_run_elsewhere_is_listed_working_then_done(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_patient_config(isolated_home)
    mock_llm_thread.enqueue({"text": "ANSWER", "fault": "hold"})
    asked = _asked(mock_llm_thread)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    run = popen_gemtui(["-p", "count the files"], env=env, cwd=workspace)
    try:
        asked.wait()
        (row,) = _agents(isolated_home, workspace)
        assert row["state"] == "working"
        assert (row["pid"], row["task"], row["name"]) == (run.pid, "count the files", "headless")
        assert row["workspace"] == str(workspace.resolve())
        assert row["model"]
        assert row["ended"] is None
        other = tmp_path / "elsewhere"
        other.mkdir()
        assert _agents(isolated_home, other) == []  # only this folder's agents
        mock_llm_thread.release()
        out, err = run.communicate()
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 0, err
    assert b"ANSWER" in out
    (row,) = _agents(isolated_home, workspace)
    assert row["state"] == "done"
    assert row["ended"] is not None
    assert row["tokens"] > 0
    text = run_gemtui(["agents"], env=gemtui_env(isolated_home), cwd=workspace)
    assert "done" in text.stdout
    assert "count the files" in text.stdout


def test_a_run_killed_mid_prompt_is_listed_as_gone(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_patient_config(isolated_home)
    mock_llm_thread.enqueue({"text": "never seen", "fault": "hold"})
    asked = _asked(mock_llm_thread)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    run = popen_gemtui(["-p", "long job"], env=env, cwd=workspace)
    asked.wait()
    assert [r["state"] for r in _agents(isolated_home, workspace)] == ["working"]  # control
    run.send_signal(signal.SIGKILL)
    run.communicate()
    mock_llm_thread.release()
    (row,) = _agents(isolated_home, workspace)
    assert row["state"] == "gone"
    assert row["error"] == "the process is gone"


def test_no_agents_yet_says_so(isolated_home: Path, workspace: Path) -> None:
    proc = run_gemtui(["agents"], env=gemtui_env(isolated_home), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "No agents in this folder yet.\n"
