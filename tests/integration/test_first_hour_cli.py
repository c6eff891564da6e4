"""First-hour friction on the command line, through the real `gemtui` against the mock.

A typo of a subcommand (`gemtui checkpoint`) is not spent as a paid prompt; `gemtui
checkpoints` says what its columns are and whose session each checkpoint is; `gemtui
sessions list` marks a fork; a headless refusal names the flags that would allow the call;
a broken custom command's warning in a headless run suggests something that works there
(not the TUI's `/commands reload`).
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config


def test_a_lone_word_close_to_a_subcommand_is_not_sent(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """`gemtui checkpoint` exits 42 naming `gemtui checkpoints`, and no request reaches
    the model; the way the message names to send it anyway (`-p`) does send it."""
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    for word, meant in (("checkpoint", "checkpoints"), ("session", "sessions")):
        proc = run_gemtui([word], env=env, cwd=workspace)
        assert proc.returncode == 42, proc.stderr
        assert f"did you mean `gemtui {meant}`?" in proc.stderr
        assert f"gemtui -p {word}" in proc.stderr
        assert "Traceback" not in proc.stderr
    assert mock_llm_thread.requests == []

    # control: the word asked for on purpose is a prompt like any other
    mock_llm_thread.enqueue({"text": "a checkpoint is a snapshot"})
    sent = run_gemtui(["-p", "checkpoint"], env=env, cwd=workspace)
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.strip() == "a checkpoint is a snapshot"
    [request] = mock_llm_thread.requests
    assert request.json["contents"][-1]["parts"][0]["text"] == "checkpoint"


def _at_a_terminal(args: list[str], reply: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """`gemtui ARGS` on a pseudo-terminal, ``reply`` typed ahead; its exit code and screen."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gemtui", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
    )
    os.close(slave)
    out = b""
    try:
        os.write(master, reply.encode())
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed: the process ended
                break
            if not chunk:
                break
            out += chunk
    finally:  # a TUI opened instead (the bug) waits for keys: pytest's timeout ends it here
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return proc.wait(timeout=60), out.decode(errors="replace")


def test_at_a_terminal_the_typo_is_a_question(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """At a terminal `gemtui checkpoint` asks: y runs `gemtui checkpoints`, Enter (no)
    exits 42; neither sends anything to the model."""
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    code, screen = _at_a_terminal(["checkpoint"], "y\n", env, workspace)
    assert code == 0, screen
    assert "did you mean `gemtui checkpoints`?" in screen
    assert "No checkpoints in this folder yet." in screen
    code, screen = _at_a_terminal(["checkpoint"], "\n", env, workspace)
    assert code == 42, screen
    assert "No checkpoints" not in screen
    assert mock_llm_thread.requests == []


def test_checkpoints_prints_a_header_and_each_session(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (workspace / "a.txt").write_text("start\n")
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue(
        {
            "function_calls": [
                {"name": "write_file", "args": {"file_path": "a.txt", "content": "1"}}
            ]
        },
        {"text": "ok"},
    )
    assert run_gemtui(["-p", "edit it", "-y"], env=env, cwd=workspace).returncode == 0
    rows = json.loads(run_gemtui(["checkpoints", "--json"], env=env, cwd=workspace).stdout)
    [row] = rows
    listed = run_gemtui(["checkpoints"], env=env, cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    header, line, *_ = listed.stdout.splitlines()
    assert header.split()[:5] == ["ID", "CREATED", "SESSION", "TOOL", "FILES"]
    assert line.split()[0] == row["id"]
    assert str(row["session"])[:8] in line.split()
    assert "write_file" in line
    assert "“edit it”" in line


def test_a_headless_refusal_names_the_flags_that_allow_it(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The refused edit's line names `--approval-mode auto_edit` and `--yolo`; the control
    run with the first of them writes the file, so the advice is true."""
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    write = {"name": "write_file", "args": {"file_path": "out.txt", "content": "x"}}
    mock_llm_thread.enqueue({"function_calls": [write]}, {"text": "done"})
    refused = run_gemtui(["-p", "go"], env=env, cwd=workspace)
    assert refused.returncode == 0, refused.stderr
    [line] = [ln for ln in refused.stderr.splitlines() if "needs approval" in ln]
    assert "write_file was not run" in line
    assert "--approval-mode auto_edit" in line
    assert "--yolo" in line
    assert not (workspace / "out.txt").exists()

    mock_llm_thread.enqueue({"function_calls": [write]}, {"text": "done"})
    allowed = run_gemtui(["-p", "go", "--approval-mode", "auto_edit"], env=env, cwd=workspace)
    assert allowed.returncode == 0, allowed.stderr
    assert (workspace / "out.txt").read_text() == "x"

    shell = {"name": "run_shell_command", "args": {"command": "touch ran"}}
    mock_llm_thread.enqueue({"function_calls": [shell]}, {"text": "done"})
    refused = run_gemtui(["-p", "go"], env=env, cwd=workspace)
    [line] = [ln for ln in refused.stderr.splitlines() if "needs approval" in ln]
    assert "--yolo" in line
    assert "auto_edit" not in line  # it would not allow a shell command
    assert not (workspace / "ran").exists()


def test_a_broken_custom_command_headless_suggests_no_tui_command(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    env["HOME"] = str(isolated_home / "person")
    broken = isolated_home / "person" / ".gemini" / "commands" / "broken.toml"
    broken.parent.mkdir(parents=True)
    broken.write_text('prompt = "unterminated\n', encoding="utf-8")
    mock_llm_thread.enqueue({"text": "hi"})
    proc = run_gemtui(["-p", "hello"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    [line] = [ln for ln in proc.stderr.splitlines() if "Custom command not loaded" in ln]
    assert str(broken) in line
    assert "/commands reload" not in line  # the TUI's: a headless run has no prompt for it
    assert "next gemtui run" in line


def test_sessions_list_marks_a_fork(isolated_home: Path, workspace: Path) -> None:
    from gemtui.store import SessionStore
    from gemtui.wire import Content

    with SessionStore() as store:
        store.create_session("a" * 32, title="Parser streams JSON lines", workspace=str(workspace))
        store.add_message("a" * 32, "user", Content.user("stream it"))
        fork = store.fork("a" * 32)
    listed = run_gemtui(["sessions", "list"], env=gemtui_env(isolated_home), cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
    assert rows[fork[:8]].endswith("⎇ Parser streams JSON lines (fork)")
    assert rows["a" * 8].endswith(" Parser streams JSON lines")  # the source: no mark
    assert "⎇" not in rows["a" * 8]


def test_a_broken_agent_or_skill_headless_suggests_no_tui_command(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """`/agents reload` and `/skills reload` exist only in the TUI: a headless run's
    warning says what works there."""
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    person = isolated_home / "person"
    env["HOME"] = str(person)
    agent = person / ".gemini" / "agents" / "broken.md"
    agent.parent.mkdir(parents=True)
    agent.write_text("---\nname: [unclosed\n---\nbody\n", encoding="utf-8")
    skill = person / ".gemini" / "skills" / "broken" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: [unclosed\n---\nbody\n", encoding="utf-8")
    mock_llm_thread.enqueue({"text": "hi"})
    proc = run_gemtui(["-p", "hello"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    for kind, reload in (
        ("Agent not loaded", "/agents reload"),
        ("Skill not loaded", "/skills reload"),
    ):
        [line] = [w for w in proc.stderr.split("gemtui: ") if kind in w]  # one warning
        assert reload not in line, line
        assert "next gemtui run" in line, line
