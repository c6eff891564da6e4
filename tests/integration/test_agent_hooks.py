"""Gemini CLI's hook decisions around the whole prompt, through the real `gemtui -p`, real
bash and the wire-faithful mock: AfterAgent's deny sends the agent back (Claude Code's
Stop too), ``continue: false`` ends the loop, SessionStart's context reaches the model,
``suppressOutput`` and BeforeModel's ``messages``. Each test has its control beside it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.run_state import MAX_AGENT_RETRIES
from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

FIRST_TRY_REFUSED = (
    'input=$(cat); printf "%s\\n" "$input" >> {log}; case "$input" in '
    """*'"stop_hook_active": false'*) printf '{{"decision":"deny","reason":"Add DONE."}}';; """
    "*) echo '{{}}';; esac"
)
"""An AfterAgent hook that rejects the first answer and accepts the retry."""


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


def _last_user_text(request: Any) -> str:
    last = request.json["contents"][-1]
    assert last["role"] == "user"
    return "".join(p.get("text", "") for p in last["parts"])


def _lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_after_agent_deny_sends_the_agent_back_with_its_reason(
    fmt: str,
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
) -> None:
    write_fast_config(isolated_home)
    log = tmp_path / "after.log"
    _hooks(isolated_home, {"AfterAgent": FIRST_TRY_REFUSED.format(log=log)})
    mock_llm_thread.enqueue({"text": "FIRST"}, {"text": "SECOND DONE"})
    proc = _run(isolated_home, mock_llm_thread, workspace, "--output-format", fmt)
    assert proc.returncode == 0, proc.stderr
    first, second = mock_llm_thread.requests
    assert _last_user_text(first) == "hello"
    assert _last_user_text(second) == "Add DONE."  # the reason, as the next user message
    assert second.json["contents"][-2]["parts"][0]["text"] == "FIRST"
    # the retry is marked, and the hook that accepts it (the control) ends the prompt
    runs = _lines(log)
    assert [r["stop_hook_active"] for r in runs] == [False, True]
    assert runs[0]["prompt"] == "hello"
    assert runs[0]["prompt_response"] == "FIRST"
    assert "hook AfterAgent" in proc.stderr
    assert "Add DONE." in proc.stderr
    if fmt == "json":  # one result, not one per try
        assert "SECOND DONE" in json.loads(proc.stdout)["response"]
    elif fmt == "stream-json":
        events = [json.loads(line) for line in proc.stdout.splitlines()]
        [result] = [e for e in events if e["type"] == "result"]
        assert "SECOND DONE" in result["response"]
    else:
        assert proc.stdout.rstrip().endswith("SECOND DONE")


def test_after_agent_that_always_refuses_is_bounded(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    log = tmp_path / "after.log"
    refuse = f"""cat >> {log}; echo >> {log}; printf '{{"decision":"block","reason":"again"}}'"""
    _hooks(isolated_home, {"AfterAgent": refuse})
    tries = MAX_AGENT_RETRIES + 1
    mock_llm_thread.enqueue(*({"text": f"try {n}"} for n in range(tries)))
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == tries
    assert [r["stop_hook_active"] for r in _lines(log)] == [False] + [True] * MAX_AGENT_RETRIES
    assert f"rejected the answer {tries} times" in proc.stderr


def test_claude_code_stop_hook_exit_2_makes_the_agent_go_on(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    log = tmp_path / "stop.log"
    stop = (
        f'input=$(cat); printf "%s\\n" "$input" >> {log}; case "$input" in '
        """*'"stop_hook_active": false'*) echo 'run the tests first' >&2; exit 2;; esac"""
    )
    _hooks(isolated_home, {"Stop": stop}, folder=".claude")
    mock_llm_thread.enqueue({"text": "all good"}, {"text": "tests ran"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    assert _last_user_text(mock_llm_thread.requests[1]) == "run the tests first"
    runs = _lines(log)
    assert [r["hook_event_name"] for r in runs] == ["Stop", "Stop"]
    assert [r["stop_hook_active"] for r in runs] == [False, True]


@pytest.mark.parametrize(("event", "ran"), [("BeforeTool", False), ("AfterTool", True)])
def test_continue_false_ends_the_agent_loop(
    event: str,
    ran: bool,
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
) -> None:
    write_fast_config(isolated_home)
    call = {"function_calls": [{"name": "run_shell_command", "args": {"command": "touch made"}}]}
    # control: a hook that lets it be, and the loop goes on to a second model call
    _hooks(isolated_home, {event: "echo '{}'"})
    mock_llm_thread.enqueue(call, {"text": "second call"})
    proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 2
    assert (workspace / "made").exists()
    (workspace / "made").unlink()

    stop = json.dumps(
        {"continue": False, "stopReason": "maintenance window", "systemMessage": "back at 6"}
    )
    stop = f"printf '%s' '{stop}'"
    _hooks(isolated_home, {event: stop})
    mock_llm_thread.enqueue(call, {"text": "NEVER-ASKED"})
    proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 3  # no model call after the hook said stop
    assert (workspace / "made").exists() is ran
    assert f"hook {event}" in proc.stderr
    assert "stopped: maintenance window (back at 6)" in proc.stderr
    assert "NEVER-ASKED" not in proc.stdout


@pytest.mark.parametrize(
    ("folder", "answer"),
    [
        (".gemini", json.dumps({"hookSpecificOutput": {"additionalContext": "CODENAME-ZEBRA"}})),
        (".claude", "CODENAME-ZEBRA"),  # Claude Code's plain stdout is context
    ],
)
def test_session_start_context_reaches_the_first_request(
    folder: str,
    answer: str,
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
) -> None:
    write_fast_config(isolated_home)
    ran = tmp_path / "ran"
    _hooks(isolated_home, {"SessionStart": f"touch {ran}; printf '%s' '{answer}'"}, folder)
    mock_llm_thread.enqueue({"text": "ok"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    assert ran.exists()
    [request] = mock_llm_thread.requests
    assert "hello" in _last_user_text(request)
    assert "CODENAME-ZEBRA" in _last_user_text(request)


def test_suppress_output_hides_a_quiet_run_but_never_what_a_hook_changed(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    # control: an ordinary run is shown
    _hooks(isolated_home, {"SessionStart": "echo '{}'"})
    mock_llm_thread.enqueue({"text": "ok"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    assert "hook SessionStart" in proc.stderr

    rewrite = {"suppressOutput": True, "hookSpecificOutput": {"tool_input": {"command": "true"}}}
    _hooks(
        isolated_home,
        {
            "SessionStart": """printf '{"suppressOutput": true}'""",
            "BeforeTool": f"printf '%s' '{json.dumps(rewrite)}'",
        },
    )
    call = {"function_calls": [{"name": "run_shell_command", "args": {"command": "echo hi"}}]}
    mock_llm_thread.enqueue(call, {"text": "ok"})
    proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert "hook SessionStart" not in proc.stderr
    assert "hook BeforeTool" in proc.stderr
    assert "rewrote" in proc.stderr


EDIT_MESSAGES = """
import json, sys
request = json.load(sys.stdin)["llm_request"]
request["messages"][-1]["content"] = "HELLO FROM THE HOOK"
print(json.dumps({"hookSpecificOutput": {"llm_request": {"messages": request["messages"]}}}))
"""


def test_before_model_messages_replace_the_conversation_text(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    script = tmp_path / "edit.py"
    script.write_text(EDIT_MESSAGES)
    # control: a hook overriding only the config leaves the conversation as it was
    only_config = {"hookSpecificOutput": {"llm_request": {"config": {"temperature": 0.2}}}}
    _hooks(isolated_home, {"BeforeModel": f"printf '%s' '{json.dumps(only_config)}'"})
    mock_llm_thread.enqueue({"text": "ok"})
    assert _run(isolated_home, mock_llm_thread, workspace).returncode == 0
    assert _last_user_text(mock_llm_thread.requests[0]) == "hello"

    _hooks(isolated_home, {"BeforeModel": f"{sys.executable} {script}"})
    mock_llm_thread.enqueue({"text": "ok"})
    proc = _run(isolated_home, mock_llm_thread, workspace)
    assert proc.returncode == 0, proc.stderr
    request = mock_llm_thread.requests[1]
    assert _last_user_text(request) == "HELLO FROM THE HOOK"
    system = request.json["systemInstruction"]["parts"][0]["text"]
    assert system == mock_llm_thread.requests[0].json["systemInstruction"]["parts"][0]["text"]


def test_pre_compress_fires_with_trigger_auto_when_history_is_compressed(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    log = tmp_path / "pre.log"
    _hooks(isolated_home, {"PreCompress": f"cat >> {log}; echo >> {log}; echo '{{}}'"})
    (workspace / "notes.txt").write_text("a line of notes to keep\n" * 400)
    call = {"function_calls": [{"name": "read_file", "args": {"file_path": "notes.txt"}}]}
    # control: below the threshold nothing is compressed and the hook never runs
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(call, {"text": "listed"})
    proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert not log.exists()

    write_fast_config(isolated_home, "\n[chat]\ncompression_threshold = 0.001\n")
    summary = {"text": "<state_snapshot>the folder was listed</state_snapshot>"}
    # compressed before the third call: the first result is in the history by then
    mock_llm_thread.enqueue(call, call, summary, {"text": "listed"})
    proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert "history compressed" in proc.stderr
    [event] = _lines(log)
    assert event["hook_event_name"] == "PreCompress"
    assert event["trigger"] == "auto"


def test_model_hooks_continue_false_ends_the_loop_as_done(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    call = {"function_calls": [{"name": "run_shell_command", "args": {"command": "touch made"}}]}
    # control: an AfterModel hook that lets the answer be, and its call runs
    _hooks(isolated_home, {"AfterModel": "echo '{}'"})
    mock_llm_thread.enqueue(call, {"text": "ok"})
    proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "made").exists()
    (workspace / "made").unlink()

    stop = """printf '{"continue":false,"stopReason":"enough for today"}'"""
    for event, requests in (("AfterModel", 3), ("BeforeModel", 3)):
        _hooks(isolated_home, {event: stop})
        if event == "AfterModel":
            mock_llm_thread.enqueue(call)
        proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo", "--output-format", "json")
        assert proc.returncode == 0, proc.stderr  # stopped, not failed
        assert json.loads(proc.stdout)["error"] is None
        assert len(mock_llm_thread.requests) == requests
        assert not (workspace / "made").exists()  # the stopped answer's call never ran
        assert f"hook {event}" in proc.stderr
        assert "stopped: enough for today" in proc.stderr


def test_before_agent_continue_false_keeps_the_prompt_a_deny_forgets_it(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = _env(isolated_home, mock_llm_thread.url)
    for decision, prompt, code in (
        ({"decision": "deny", "reason": "not now"}, "FORGOTTEN-IDEA", 1),  # the control
        ({"continue": False, "stopReason": "not now"}, "KEPT-IDEA", 0),
    ):
        _hooks(isolated_home, {"BeforeAgent": f"printf '%s' '{json.dumps(decision)}'"})
        proc = run_gemtui(["-p", prompt], env=env, cwd=workspace)
        assert proc.returncode == code, proc.stderr
        assert "not now" in proc.stderr
        assert mock_llm_thread.requests == []  # neither reached the model
        _hooks(isolated_home, {})
        if code == 1:  # denied: nothing of it was kept, there is no session to resume
            proc = run_gemtui(["--resume", "latest", "-p", "next"], env=env, cwd=workspace)
            assert proc.returncode == 42, proc.stderr
            continue
        mock_llm_thread.enqueue({"text": "ok"})
        proc = run_gemtui(["--resume", "latest", "-p", "next"], env=env, cwd=workspace)
        assert proc.returncode == 0, proc.stderr
        [request] = mock_llm_thread.requests
        assert prompt in json.dumps(request.json["contents"])


def test_tool_hooks_get_mcp_context_for_an_mcp_servers_tool(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    server = Path(sys.executable).parent / "mcp-server-time"
    write_fast_config(
        isolated_home,
        f"\n[mcpServers.time]\ncommand = {json.dumps(str(server))}\n"
        'args = ["--local-timezone", "UTC"]\ntrust = true\n',
    )
    log = tmp_path / "tools.log"
    record = f"cat >> {log}; echo >> {log}; echo '{{}}'"
    _hooks(isolated_home, {"BeforeTool": record, "AfterTool": record})
    calls = [
        {"name": "get_current_time", "args": {"timezone": "UTC"}},
        {"name": "list_directory", "args": {"dir_path": "."}},  # the control: a built-in
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "ok"})
    proc = _run(isolated_home, mock_llm_thread, workspace, "--yolo")
    assert proc.returncode == 0, proc.stderr
    runs = {(r["hook_event_name"], r["tool_name"]): r for r in _lines(log)}
    assert set(runs) == {
        (e, t) for e in ("BeforeTool", "AfterTool") for t in ("get_current_time", "list_directory")
    }
    for event in ("BeforeTool", "AfterTool"):
        context = runs[(event, "get_current_time")]["mcp_context"]
        assert context["server_name"] == "time"
        assert context["tool_name"] == "get_current_time"
        assert context["command"] == str(server)
        assert context["args"] == ["--local-timezone", "UTC"]
        assert "mcp_context" not in runs[(event, "list_directory")]


def test_after_agent_clear_context_makes_the_model_forget_before_the_retry(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    refuse = {"decision": "deny", "reason": "Start over.", "hookSpecificOutput": {}}
    hook = (
        'input=$(cat); case "$input" in '
        """*'"stop_hook_active": false'*) printf '%s' '{answer}';; *) echo '{{}}';; esac"""
    )
    for clear in (False, True):  # the control first: without clearContext the model remembers
        refuse["hookSpecificOutput"] = {"clearContext": clear}
        _hooks(isolated_home, {"AfterAgent": hook.format(answer=json.dumps(refuse))})
        mock_llm_thread.enqueue({"text": "SECRET-DRAFT"}, {"text": "fresh"})
        proc = _run(isolated_home, mock_llm_thread, workspace)
        assert proc.returncode == 0, proc.stderr
        retry = mock_llm_thread.requests[-1].json["contents"]
        assert retry[-1]["parts"] == [{"text": "Start over."}]
        assert ("SECRET-DRAFT" in json.dumps(retry)) is not clear
