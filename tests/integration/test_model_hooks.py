"""Gemini CLI's model hooks (BeforeModel, BeforeToolSelection, AfterModel) and Claude Code's
SubagentStop, through the real `gemtui -p`, real bash and the wire-faithful mock."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

REDACT = """
import json, sys
chunk = json.load(sys.stdin)["llm_response"]
for c in chunk["candidates"]:
    c["content"]["parts"] = [p.replace("hunter2", "[redacted]") for p in c["content"]["parts"]]
print(json.dumps({"hookSpecificOutput": {"llm_response": chunk}}))
"""


def _env(home: Path, url: str) -> dict[str, str]:
    env = gemtui_env(home, url)
    env["HOME"] = str(home / "person")
    return env


def _hooks(home: Path, hooks: dict[str, str], folder: str = ".gemini") -> None:
    path = home / "person" / folder / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    entries = {e: [{"hooks": [{"type": "command", "command": c}]}] for e, c in hooks.items()}
    path.write_text(json.dumps({"hooks": entries}), encoding="utf-8")


def _run(home: Path, mock: MockLLMServer, ws: Path, *args: str) -> Any:
    return run_gemtui(["-p", "hello", *args], env=_env(home, mock.url), cwd=ws)


def _names(request: Any) -> list[str]:
    return [d["name"] for t in request.json.get("tools") or () for d in t["functionDeclarations"]]


def test_before_model_sees_the_request_and_a_deny_sends_nothing(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    saw = tmp_path / "saw.json"
    # control: a hook that only looks lets the call through, and sees Gemini CLI's shape
    _hooks(isolated_home, {"BeforeModel": f"cat > {saw}; echo '{{}}'"})
    mock_llm_thread.enqueue({"text": "ANSWER"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ANSWER"
    stdin = json.loads(saw.read_text())
    assert stdin["hook_event_name"] == "BeforeModel"
    request = stdin["llm_request"]
    assert request["messages"][-1] == {"role": "user", "content": "hello"}
    assert request["messages"][0]["role"] == "system"
    assert "read_file" in request["toolConfig"]["allowedFunctionNames"]

    _hooks(isolated_home, {"BeforeModel": "echo 'no model calls today' >&2; exit 2"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 1
    assert "no model calls today" in proc.stderr
    assert len(mock_llm_thread.requests) == 1  # only the control's call reached the model


def test_before_model_overrides_model_and_config_or_answers_itself(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    override = {"llm_request": {"model": "gemini-2.5-flash-lite", "config": {"temperature": 0.1}}}
    _hooks(
        isolated_home,
        {"BeforeModel": f"printf '%s' '{json.dumps({'hookSpecificOutput': override})}'"},
    )
    mock_llm_thread.enqueue({"text": "ok"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    [request] = mock_llm_thread.requests
    assert "/models/gemini-2.5-flash-lite:" in request.path
    assert request.json["generationConfig"]["temperature"] == 0.1

    synthetic = {
        "llm_response": {"candidates": [{"content": {"role": "model", "parts": ["FROM-THE-HOOK"]}}]}
    }
    _hooks(
        isolated_home,
        {"BeforeModel": f"printf '%s' '{json.dumps({'hookSpecificOutput': synthetic})}'"},
    )
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "FROM-THE-HOOK"
    assert len(mock_llm_thread.requests) == 1  # no call was made


def test_before_tool_selection_narrows_or_removes_the_tools(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    only = {"toolConfig": {"allowedFunctionNames": ["read_file", "glob"]}}
    _hooks(
        isolated_home,
        {"BeforeToolSelection": f"printf '%s' '{json.dumps({'hookSpecificOutput': only})}'"},
    )
    mock_llm_thread.enqueue({"text": "ok"})
    assert _run(isolated_home, mock_llm_thread, workspace).returncode == 0
    assert sorted(_names(mock_llm_thread.requests[0])) == ["glob", "read_file"]

    none = {"toolConfig": {"mode": "NONE"}}
    _hooks(
        isolated_home,
        {"BeforeToolSelection": f"printf '%s' '{json.dumps({'hookSpecificOutput': none})}'"},
    )
    mock_llm_thread.enqueue({"text": "ok"})
    assert _run(isolated_home, mock_llm_thread, workspace).returncode == 0
    assert _names(mock_llm_thread.requests[1]) == []
    mode = mock_llm_thread.requests[1].json["toolConfig"]["functionCallingConfig"]["mode"]
    assert mode == "NONE"


def test_after_model_rewrites_each_chunk_and_can_end_the_turn(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    script = tmp_path / "redact.py"
    script.write_text(REDACT)
    _hooks(isolated_home, {"AfterModel": f"{sys.executable} {script}"})
    mock_llm_thread.enqueue({"text": "the password is hunter2, keep it"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    assert "hunter2" not in proc.stdout
    assert "the password is [redacted], keep it" in proc.stdout

    _hooks(isolated_home, {"AfterModel": "echo 'answer withheld' >&2; exit 2"})
    mock_llm_thread.enqueue({"text": "the password is hunter2"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 1
    assert "hunter2" not in proc.stdout
    assert "answer withheld" in proc.stderr


def test_claude_subagent_stop_fires_when_a_subagent_ends(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    log = tmp_path / "stops.log"
    _hooks(isolated_home, {"SubagentStop": f"cat >> {log}; echo >> {log}"}, folder=".claude")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "generalist", "args": {"task": "say hi"}}]},
        {"function_calls": [{"name": "complete_task", "args": {"output": {"report": "hi"}}}]},
        {"text": "done"},
    )
    proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo")
    assert proc.returncode == 0, proc.stderr
    [event] = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert event["hook_event_name"] == "SubagentStop"
    assert event["agent"] == "generalist"
