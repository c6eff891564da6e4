"""`gemtui -p` end to end: the real command, the mock server, exit codes, formats."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from gemtui.testing import MockLLMServer, filler

from .helpers import gemtui_env, popen_gemtui, run_gemtui, write_fast_config


def test_streamed_answer_on_stdout(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        {"text": "Hello from the mock model.", "chunks": 4, "thought": "**Thinking** hard"}
    )
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello from the mock model.\n"
    body = mock_llm_thread.requests[-1].json
    assert body["contents"][-1] == {"role": "user", "parts": [{"text": "hi"}]}
    assert "Traceback" not in proc.stderr


def test_prompt_from_piped_stdin(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "piped ok"})
    proc = run_gemtui(
        [], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace, stdin="from a pipe\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "piped ok"
    assert (
        mock_llm_thread.requests[-1]
        .json["contents"][-1]["parts"][0]["text"]
        .startswith("from a pipe")
    )


def test_json_output(mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        {"text": "json answer", "usage": {"prompt": 7, "output": 2, "total": 9}}
    )
    proc = run_gemtui(
        ["-p", "hi", "--output-format", "json", "-m", "gemini-2.5-flash"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    obj = json.loads(proc.stdout)
    assert obj["response"] == "json answer"
    assert obj["error"] is None
    assert obj["stats"]["models"]["gemini-2.5-flash"]["total"] == 9
    assert mock_llm_thread.requests[-1].path.endswith(
        "/models/gemini-2.5-flash:streamGenerateContent"
    )


def test_headless_stats_report_the_cost(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The engine prices each call (known prices, the settings' on top), so headless
    stats carry the cost the TUI's usage pane shows; an unpriced model says null."""
    usage = {"prompt": 1_000_000, "output": 500_000, "total": 1_500_000}
    mock_llm_thread.enqueue({"text": "priced", "usage": usage}, {"text": "free", "usage": usage})
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    prices = '[providers.gemini]\nkind = "gemini"\nprices = { output = 20.0 }\n'
    for extra, model, expected in (
        (prices, "gemini-2.5-flash", 0.30 + 0.5 * 20.0),
        ("", "no-such-model", None),
    ):
        write_fast_config(isolated_home, extra)
        proc = run_gemtui(
            ["-p", "hi", "--output-format", "json", "-m", model], env=env, cwd=workspace
        )
        assert proc.returncode == 0, proc.stderr
        cost = json.loads(proc.stdout)["stats"]["cost_usd"]
        assert cost == (None if expected is None else pytest.approx(expected)), model


def test_stream_json_output(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "a b c", "chunks": 3, "thought": "**S** t"})
    proc = run_gemtui(
        ["-p", "hi", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "init"
    assert lines[0]["model"]
    assert lines[0]["session_id"]
    assert "thought" in types
    assert "".join(line["content"] for line in lines if line["type"] == "message") == "a b c"
    assert types[-1] == "result"
    assert lines[-1]["response"] == "a b c"
    assert "tokens" in lines[-1]["stats"]


def test_no_key_exits_41_with_how_to(isolated_home: Path, workspace: Path) -> None:
    proc = run_gemtui(["-p", "hi"], env=gemtui_env(isolated_home, key=None), cwd=workspace)
    assert proc.returncode == 41
    assert "GEMINI_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_flag_exits_42_with_usage(isolated_home: Path, workspace: Path) -> None:
    proc = run_gemtui(["--no-such-flag"], env=gemtui_env(isolated_home), cwd=workspace)
    assert proc.returncode == 42
    assert "usage: gemtui" in proc.stderr


def test_malformed_config_exits_52_naming_file_and_line(
    isolated_home: Path, workspace: Path
) -> None:
    cfg = isolated_home / "config"
    cfg.mkdir()
    (cfg / "config.toml").write_text('[general]\nmodel = "x"\nbroken = \n', encoding="utf-8")
    proc = run_gemtui(["-p", "hi"], env=gemtui_env(isolated_home), cwd=workspace)
    assert proc.returncode == 52
    assert str(cfg / "config.toml") in proc.stderr
    assert "line 3" in proc.stderr


def test_unknown_setting_exits_52_naming_key(isolated_home: Path, workspace: Path) -> None:
    (workspace / ".gemtui").mkdir()
    (workspace / ".gemtui" / "config.toml").write_text(
        '[general]\napproval_mode = "sometimes"\n', encoding="utf-8"
    )
    proc = run_gemtui(
        ["-p", "hi", "--trust-workspace"], env=gemtui_env(isolated_home), cwd=workspace
    )
    assert proc.returncode == 52
    assert "general.approval_mode" in proc.stderr
    assert ".gemtui" in proc.stderr


def test_persistent_server_error_exits_1_with_message(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    for _ in range(3):
        mock_llm_thread.enqueue({"error": {"status": 503, "message": "The model is overloaded."}})
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 1
    assert "overloaded" in proc.stderr
    assert "retrying" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_key_exits_41(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"error": {"status": 403, "message": "API key not valid."}})
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 41
    assert "API key not valid" in proc.stderr


def test_stall_hits_read_timeout_and_ends_clearly(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, "")
    cfg = isolated_home / "config" / "config.toml"
    cfg.write_text(
        cfg.read_text()
        .replace("read_timeout = 2.0", "read_timeout = 0.3")
        .replace("[0.0, 0.0, 0.0]", "[]")
    )
    # held for ever: only the read timeout can end the run
    mock_llm_thread.enqueue({"text": "a b c", "chunks": 3, "fault": "hold", "after_chunks": 1})
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 1
    assert "error" in proc.stderr.lower()
    assert "Traceback" not in proc.stderr


def test_broken_stream_is_retried_and_partial_text_discarded(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        {"text": "first attempt text", "chunks": 3, "fault": "reset_after", "after_chunks": 1},
        {"text": "second attempt"},
    )
    proc = run_gemtui(
        ["-p", "hi", "--output-format", "json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["response"] == "second attempt"
    assert "asking again" in proc.stderr


def _wait_for_stdout_byte(proc: popen_gemtui) -> bytes:  # type: ignore[valid-type]
    assert proc.stdout is not None  # type: ignore[attr-defined]
    return os.read(proc.stdout.fileno(), 1)  # type: ignore[attr-defined]


def test_ctrl_c_during_stream_exits_130_at_once(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    cfg = isolated_home / "config" / "config.toml"  # no read timeout within the hang guard
    cfg.write_text(cfg.read_text().replace("read_timeout = 2.0", "read_timeout = 600.0"))
    # the answer is held after its first chunk and never released: only Ctrl-C ends it
    mock_llm_thread.enqueue({"text": filler(40), "chunks": 4, "fault": "hold", "after_chunks": 1})
    proc = popen_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    first = _wait_for_stdout_byte(proc)
    assert first
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)  # a hang guard, not a stopwatch
    assert proc.returncode == 130
    assert b"Traceback" not in proc.stderr.read()  # type: ignore[union-attr]


def test_ctrl_c_during_retry_wait_exits_130(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        {"error": {"status": 429, "message": "slow down", "retry_delay": "60s"}}
    )
    proc = popen_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()  # the retry notice
    assert b"retrying" in line
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=10)
    assert proc.returncode == 130


def test_version_and_help(isolated_home: Path, workspace: Path) -> None:
    v = run_gemtui(["--version"], env=gemtui_env(isolated_home), cwd=workspace)
    assert v.returncode == 0
    assert v.stdout.startswith("gemtui ")
    h = run_gemtui(["--help"], env=gemtui_env(isolated_home), cwd=workspace)
    assert h.returncode == 0
    for flag in (
        "--model",
        "--provider",
        "--output-format",
        "--approval-mode",
        "--yolo",
        "--max-turns",
        "--resume",
        "--fake-responses",
    ):
        assert flag in h.stdout


def test_persistent_429_falls_back_to_the_next_model(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(
        isolated_home,
        '\n[general]\nprovider = "gem"\n\n[providers.gem]\nkind = "gemini"\ndefault_model = "gemini-2.5-pro"\nfallback = ["gemini-2.5-flash"]\n',
    )
    mock_llm_thread.enqueue(
        {
            "error": {
                "status": 429,
                "message": "Quota exceeded",
                "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
            }
        },
        {"text": "answered by flash"},
    )
    proc = run_gemtui(
        ["-p", "hi", "--fallback"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "answered by flash"
    assert "switching from gemini-2.5-pro to gemini-2.5-flash" in proc.stderr
    paths = [r.path for r in mock_llm_thread.requests]
    assert paths[0].endswith("gemini-2.5-pro:streamGenerateContent")
    assert paths[1].endswith("gemini-2.5-flash:streamGenerateContent")
    # the prompt is sent once, not duplicated by the resend
    assert [c["parts"][0].get("text") for c in mock_llm_thread.requests[1].json["contents"]] == [
        "hi"
    ]


def test_tools_in_headless_stream_json(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (workspace / "notes.txt").write_text("hello notes\n")
    mock_llm_thread.enqueue(
        {
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "r1"},
                {
                    "name": "write_file",
                    "args": {"file_path": "out.txt", "content": "x"},
                    "id": "w1",
                },
            ]
        },
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    uses = [line for line in lines if line["type"] == "tool_use"]
    results = {line["id"]: line for line in lines if line["type"] == "tool_result"}
    assert [u["name"] for u in uses] == ["read_file", "write_file"]
    assert results["r1"]["status"] == "success"
    assert "hello notes" in results["r1"]["output"]
    assert results["w1"]["status"] == "error"
    assert results["w1"]["refusal"] == "needs_approval"
    assert "refusal" not in results["r1"]
    assert not (workspace / "out.txt").exists()
    assert "write_file was not run: it needs approval" in proc.stderr


def test_a_headless_refusal_says_why(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A protected path asks even in auto_edit: headless cannot ask, and says which rule
    asked (stderr and stream-json), in its own code rather than in the error's words."""
    write_fast_config(isolated_home)
    (workspace / ".git").mkdir()
    hook = {"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "write_file", "args": hook, "id": "w1"}]},
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "--output-format", "stream-json", "--approval-mode", "auto_edit"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    [result] = [line for line in lines if line["type"] == "tool_result"]
    assert result["refusal"] == "needs_approval"
    assert "protected path" in result["approval_reason"]
    assert "write_file was not run: it needs approval" in proc.stderr
    assert "protected path" in proc.stderr
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()


def test_yolo_runs_edits_and_auto_edit_too(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    for flag, name in ((["--yolo"], "a.txt"), (["--approval-mode", "auto_edit"], "b.txt")):
        mock_llm_thread.enqueue(
            {
                "function_calls": [
                    {"name": "write_file", "args": {"file_path": name, "content": "made\n"}}
                ]
            },
            {"text": "written"},
        )
        proc = run_gemtui(
            ["-p", "go", *flag], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
        )
        assert proc.returncode == 0, proc.stderr
        assert (workspace / name).read_text() == "made\n"


def test_max_turns_exits_53(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    for i in range(3):
        mock_llm_thread.enqueue(
            {
                "function_calls": [
                    {"name": "list_directory", "args": {"dir_path": "."}, "id": f"l{i}"}
                ]
            }
        )
    proc = run_gemtui(
        ["-p", "go", "--max-turns", "2", "--output-format", "json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 53
    assert json.loads(proc.stdout)["error"] == {
        "message": "stopped after 2 model turns (--max-turns or [general] max_turns)",
        "code": 53,
    }
    assert "--max-turns" in proc.stderr


def test_plan_mode_offers_only_read_only_tools(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "a plan"})
    proc = run_gemtui(
        ["-p", "plan it", "--approval-mode", "plan"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    decls = mock_llm_thread.requests[-1].json["tools"][0]["functionDeclarations"]
    names = {d["name"] for d in decls}
    assert "read_file" in names
    assert "write_file" not in names
    assert "run_shell_command" not in names


def test_fake_responses_replay(isolated_home: Path, workspace: Path) -> None:
    rec = workspace / "rec.jsonl"
    rec.write_text(
        json.dumps(
            {
                "method": "generateContentStream",
                "response": [
                    {
                        "candidates": [
                            {"content": {"role": "model", "parts": [{"text": "replayed "}]}}
                        ]
                    },
                    {
                        "candidates": [
                            {
                                "content": {"role": "model", "parts": [{"text": "answer"}]},
                                "finishReason": "STOP",
                            }
                        ]
                    },
                ],
            }
        )
        + "\n"
    )
    proc = run_gemtui(
        ["-p", "hi", "--fake-responses", str(rec)],
        env=gemtui_env(isolated_home, key=None),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "replayed answer\n"
    bad = run_gemtui(
        ["-p", "hi", "--fake-responses", str(workspace / "missing.jsonl")],
        env=gemtui_env(isolated_home, key=None),
        cwd=workspace,
    )
    assert bad.returncode == 42
    assert "missing.jsonl" in bad.stderr


def test_piped_stdin_joins_the_p_prompt(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "reviewed"})
    proc = run_gemtui(
        ["-p", "review this"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
        stdin="diff --git a/x b/x\n",
    )
    assert proc.returncode == 0, proc.stderr
    sent = mock_llm_thread.requests[-1].json["contents"][-1]["parts"][0]["text"]
    assert sent.startswith("diff --git a/x b/x")
    assert sent.endswith("review this")


def test_malformed_policy_file_exits_52_naming_it(isolated_home: Path, workspace: Path) -> None:
    write_fast_config(isolated_home)
    policy = isolated_home / "config" / "policy.toml"
    policy.write_text("[[rule]\ntoolName = 'x'\n")
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, "http://127.0.0.1:9"), cwd=workspace
    )
    assert proc.returncode == 52
    assert "policy.toml" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_unexpected_bug_is_one_line_and_a_logged_traceback(
    isolated_home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug inside the engine must never reach the person as a traceback."""
    import io

    from gemtui.agent.assembly import RunOptions
    from gemtui.agent.session import Session
    from gemtui.headless import run_headless

    async def broken(self: object, prompt: str) -> object:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(Session, "send", broken)
    rec = workspace / "r.jsonl"
    rec.write_text('{"candidates": []}\n')
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(RunOptions(workspace, "hi", fake_responses=str(rec)), out, err)
    assert code == 1
    assert "unexpected error: ZeroDivisionError: simulated bug" in err.getvalue()
    assert "Traceback" not in err.getvalue()
    log = (isolated_home / "logs" / "gemtui.log").read_text()
    assert "Traceback" in log
    assert "simulated bug" in log


def test_an_idle_open_stdin_does_not_hang_p(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A parent that keeps stdin open without writing (CI, spawn) must not block `-p`."""
    import subprocess
    import sys

    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "not stuck"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "gemtui", "-p", "hi"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
        stdin=subprocess.PIPE,  # held open, never written, closed only afterwards
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        code = proc.wait(timeout=30)
    finally:
        proc.kill()
        assert proc.stdin is not None
        proc.stdin.close()
    assert code == 0
    assert proc.stdout is not None
    assert proc.stdout.read().decode().strip() == "not stuck"


def test_text_mode_shows_live_command_output_and_todos_on_stderr(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """What the TUI shows in a tool card and the todo panel, a script sees on stderr."""
    write_fast_config(isolated_home)
    long_line = "x" * 500
    todos = [
        {"description": "Look around", "status": "completed"},
        {"description": "Change it", "status": "in_progress"},
    ]
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "write_todos", "args": {"todos": todos}}]},
        {
            "function_calls": [
                {
                    "name": "run_shell_command",
                    "args": {"command": f"echo live-one; printf 'live-two\\n{long_line}'"},
                }
            ]
        },
        {"text": "all done"},
    )
    proc = run_gemtui(
        ["-p", "go", "--yolo"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "all done\n", "progress never reaches stdout"
    lines = proc.stderr.splitlines()
    assert "  │ live-one" in lines
    assert "  │ live-two" in lines
    [cut] = [line for line in lines if line.startswith("  │ xxx")]
    assert len(cut) < 220, "a long output line is cut"
    assert cut.endswith("…"), "a long output line is cut"
    start = lines.index("gemtui: todos (1/2 done)")
    assert lines[start + 1 : start + 3] == ["  ● Look around", "  ◐ Change it"]


def test_a_pro_model_out_of_quota_falls_back_to_flash_unconfigured(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """No fallback in the settings: with ``--fallback`` a terminal quota on a Pro model
    switches the turn to the matching Flash model once, and stderr says so."""
    write_fast_config(isolated_home)
    daily = {
        "status": 429,
        "message": "Quota exceeded for quota metric 'Generate requests' per day.",
        "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
    }
    mock_llm_thread.enqueue({"error": daily}, {"text": "flash answers"})
    proc = run_gemtui(
        ["-p", "hi", "-m", "gemini-2.5-pro", "--fallback"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "flash answers"
    assert "switching from gemini-2.5-pro to gemini-2.5-flash" in proc.stderr
    paths = [r.path for r in mock_llm_thread.requests]
    assert paths[0].endswith("/models/gemini-2.5-pro:streamGenerateContent")
    assert paths[-1].endswith("/models/gemini-2.5-flash:streamGenerateContent")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_model_turns_are_not_run_together(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, fmt: str
) -> None:
    """A turn's text, a tool call, the next turn's text: two paragraphs, not
    ``writingcould not write``."""
    write_fast_config(isolated_home)
    (workspace / "a.txt").write_text("alpha\n")
    mock_llm_thread.enqueue(
        {
            "text": "Reading the file before writing",
            "function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}],
        },
        {"text": "could not write, but it says alpha."},
    )
    proc = run_gemtui(
        ["-p", "go", "--output-format", fmt],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout if fmt == "text" else json.loads(proc.stdout)["response"] + "\n"
    assert out == "Reading the file before writing\n\ncould not write, but it says alpha.\n"


def test_every_format_keeps_the_turns_of_an_answer_apart(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Text before a tool call and the answer after it are two paragraphs in text, json
    and stream-json's result alike: never "…first.Now writing…"."""
    write_fast_config(isolated_home)
    (workspace / "notes.txt").write_text("hello notes\n")
    step = {
        "text": "Reading it first.",
        "function_calls": [{"name": "read_file", "args": {"file_path": "notes.txt"}}],
    }
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    answers = {}
    for fmt in ("text", "json", "stream-json"):
        mock_llm_thread.enqueue(step, {"text": "Now it says hello."})
        proc = run_gemtui(["-p", "go", "--output-format", fmt], env=env, cwd=workspace)
        assert proc.returncode == 0, proc.stderr
        if fmt == "text":
            answers[fmt] = proc.stdout.rstrip("\n")
        elif fmt == "json":
            answers[fmt] = json.loads(proc.stdout)["response"]
        else:
            lines = [json.loads(line) for line in proc.stdout.splitlines()]
            [result] = [line for line in lines if line["type"] == "result"]
            answers[fmt] = result["response"]
    assert answers["text"] == "Reading it first.\n\nNow it says hello."
    assert answers["json"] == answers["text"]
    assert answers["stream-json"] == answers["text"]


def test_a_headless_prompt_opens_no_early_connection(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The TUI opens its connection while a person types (``providers.http.preconnect``); headless
    sends at once, where an early connection would only race its own request."""
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "Done."})
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert mock_llm_thread.early == []
    assert [r.connection for r in mock_llm_thread.requests] == [1]
