"""Hooks in Gemini CLI's settings.json format, through the real `gemtui -p` and real bash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

SECRET = "AIzaSyHOOK-SECRET-0123456789"


def _settings(home: Path, hooks: dict[str, Any], where: Path | None = None) -> None:
    path = (where or home / "person" / ".gemini") / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")


def _env(home: Path, url: str) -> dict[str, str]:
    env = gemtui_env(home, url, key=SECRET)
    env["HOME"] = str(home / "person")
    return env


def _before_tool(matcher: str, command: str, timeout: int = 10_000) -> dict[str, Any]:
    return {
        "BeforeTool": [
            {
                "matcher": matcher,
                "hooks": [{"type": "command", "command": command, "timeout": timeout}],
            }
        ]
    }


def _answers(request: Any) -> list[dict[str, Any]]:
    return [
        p["functionResponse"]["response"]
        for p in request.json["contents"][-1]["parts"]
        if "functionResponse" in p
    ]


def _shell(command: str) -> dict[str, Any]:
    return {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]}


def test_before_tool_deny_reaches_the_model_even_in_yolo(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    deny = """printf '{"decision":"deny","reason":"no deleting here"}'"""
    _settings(isolated_home, _before_tool("run_shell_.*", deny))
    (workspace / "keep.txt").write_text("x")
    mock_llm_thread.enqueue(_shell("rm keep.txt"), {"text": "ok"})
    proc = run_gemtui(
        ["-p", "clean", "--yolo"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    [answer] = _answers(mock_llm_thread.requests[1])
    assert answer["error"] == "no deleting here"
    assert (workspace / "keep.txt").exists()


def test_exit_2_blocks_with_stderr_as_the_reason(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _settings(isolated_home, _before_tool("run_shell_command", "echo 'policy says no' >&2; exit 2"))
    mock_llm_thread.enqueue(_shell("touch made"), {"text": "ok"})
    proc = run_gemtui(
        ["-p", "go", "--yolo"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    [answer] = _answers(mock_llm_thread.requests[1])
    assert answer["error"] == "policy says no"
    assert not (workspace / "made").exists()


def test_a_hook_rewrites_an_argument(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    rewrite = """printf '{"hookSpecificOutput":{"tool_input":{"file_path":"b.txt"}}}'"""
    _settings(isolated_home, _before_tool("read_file", rewrite))
    (workspace / "a.txt").write_text("A-BODY")
    (workspace / "b.txt").write_text("B-BODY")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}]}, {"text": "ok"}
    )
    proc = run_gemtui(["-p", "read"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    [answer] = _answers(mock_llm_thread.requests[1])
    assert "B-BODY" in answer["output"]


def test_a_hanging_hook_times_out_with_a_notice_and_changes_nothing(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _settings(isolated_home, _before_tool("read_file", "sleep 30; echo late", timeout=300))
    (workspace / "a.txt").write_text("A-BODY")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}]}, {"text": "ok"}
    )
    proc = run_gemtui(
        ["-p", "read"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace, timeout=20
    )
    assert proc.returncode == 0, proc.stderr
    assert "BeforeTool hook sleep 30; echo late timed out after 0.3 s" in proc.stderr
    [answer] = _answers(mock_llm_thread.requests[1])
    assert "A-BODY" in answer["output"]


def test_hook_input_and_environment_never_hold_a_secret(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    dump = isolated_home / "hook-saw.txt"
    _settings(isolated_home, _before_tool(".*", f"cat > {dump}; env >> {dump}; echo '{{}}'"))
    # the model puts the key into a call's arguments: the hook must not see it
    mock_llm_thread.enqueue(_shell(f"echo {SECRET}"), {"text": "ok"})
    proc = run_gemtui(
        ["-p", "go", "--yolo"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    saw = dump.read_text()
    assert '"tool_name": "run_shell_command"' in saw
    assert '"hook_event_name": "BeforeTool"' in saw
    assert f"GEMINI_PROJECT_DIR={workspace}" in saw
    assert SECRET not in saw
    assert "GEMINI_API_KEY" not in saw


def test_untrusted_workspace_hooks_do_not_run(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    marker = workspace / "hook-ran"
    _settings(
        isolated_home,
        _before_tool(".*", f"touch {marker}; echo nope >&2; exit 2"),
        where=workspace / ".gemini",
    )
    (workspace / "a.txt").write_text("A-BODY")
    read = {"function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}]}
    mock_llm_thread.enqueue(read, {"text": "ok"})
    env = _env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "read"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert "A-BODY" in _answers(mock_llm_thread.requests[1])[0]["output"]
    assert "not trusted" in proc.stderr
    mock_llm_thread.enqueue(read, {"text": "ok"})
    proc = run_gemtui(["-p", "read", "--trust-workspace"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()
    assert _answers(mock_llm_thread.requests[3])[0]["error"] == "nope"


def test_before_agent_adds_context_and_can_refuse(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    script = workspace.parent / "agent-hook.sh"
    script.write_text(
        "input=$(cat)\n"
        'case "$input" in *forbidden*) echo "not that" >&2; exit 2;; esac\n'
        """printf '{"hookSpecificOutput":{"additionalContext":"BRANCH-IS-main"}}'\n"""
    )
    _settings(
        isolated_home,
        {"BeforeAgent": [{"hooks": [{"type": "command", "command": f"bash {script}"}]}]},
    )
    env = _env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "ok"})
    proc = run_gemtui(["-p", "hello"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    texts = [p["text"] for p in mock_llm_thread.requests[0].json["contents"][-1]["parts"]]
    assert texts == ["hello", "BRANCH-IS-main"]
    proc = run_gemtui(["-p", "do the forbidden thing"], env=env, cwd=workspace)
    assert proc.returncode == 1
    assert "The prompt was not sent: not that" in proc.stderr
    assert len(mock_llm_thread.requests) == 1


def test_after_tool_hides_a_result_or_adds_context(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    hide = """printf '{"decision":"deny","reason":"[withheld: secrets file]"}'"""
    add = """printf '{"hookSpecificOutput":{"additionalContext":"REMEMBER-THE-STYLE-GUIDE"}}'"""
    entry = {"type": "command"}
    _settings(
        isolated_home,
        {
            "AfterTool": [
                {"matcher": "read_file", "hooks": [{**entry, "command": hide}]},
                {"matcher": "list_directory", "hooks": [{**entry, "command": add}]},
            ]
        },
    )
    (workspace / "creds.txt").write_text("TOP-SECRET-BODY")
    calls = [
        {"name": "read_file", "args": {"file_path": "creds.txt"}},
        {"name": "list_directory", "args": {"dir_path": "."}},
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "ok"})
    proc = run_gemtui(["-p", "look"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    read, listing = _answers(mock_llm_thread.requests[1])
    assert read["output"] == "[withheld: secrets file]"
    assert "TOP-SECRET-BODY" not in mock_llm_thread.requests[1].body.decode()
    assert "creds.txt" in listing["output"]
    assert listing["output"].endswith("REMEMBER-THE-STYLE-GUIDE")


def test_ask_makes_an_allowed_call_need_approval(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    ask = """printf '{"decision":"ask","reason":"reading env files needs a human"}'"""
    _settings(isolated_home, _before_tool("read_file", ask))
    (workspace / "a.txt").write_text("A-BODY")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}]}, {"text": "ok"}
    )
    proc = run_gemtui(["-p", "read"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert "read_file was not run: it needs approval: reading env files needs a human" in (
        proc.stderr
    )
    assert "hook BeforeTool" in proc.stderr
    assert "asked: reading env files needs a human" in proc.stderr
    [answer] = _answers(mock_llm_thread.requests[1])
    assert "A-BODY" not in json.dumps(answer)
    assert "needs approval" in answer["error"]


def test_observing_hooks_run_and_are_shown(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    log = isolated_home / "events.log"
    record = {"type": "command", "command": f"cat >> {log}; echo >> {log}; echo '{{}}'"}
    _settings(
        isolated_home,
        {e: [{"hooks": [record]}] for e in ("SessionStart", "AfterAgent", "SessionEnd")},
    )
    mock_llm_thread.enqueue({"text": "ANSWER-TEXT"})
    proc = run_gemtui(["-p", "hi"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    by_name = {e["hook_event_name"]: e for e in events}
    assert len(events) == 3
    assert events[-1]["hook_event_name"] == "SessionEnd"  # after the others finished
    assert by_name["SessionStart"]["source"] == "startup"
    assert by_name["AfterAgent"]["prompt_response"] == "ANSWER-TEXT"
    assert proc.stderr.count("hook ") >= 3
