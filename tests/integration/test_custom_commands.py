"""Custom TOML slash commands through the real `gemtui -p` against the mock server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

COMMIT = '''
description = "Write a commit message"
prompt = """
Write a commit message for: {{args}}
Status: !{printf 'STATUS[%s]' {{args}}}
Notes: @{notes.txt}
"""
'''


def _env(home: Path, url: str) -> dict[str, str]:
    env = gemtui_env(home, url)
    env["HOME"] = str(home / "person")  # ~/.gemini/commands lives here
    return env


def _user_command(home: Path, rel: str, text: str) -> Path:
    path = home / "person" / ".gemini" / "commands" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _sent_text(request: Any) -> str:
    return "".join(p.get("text", "") for p in request.json["contents"][-1]["parts"])


def test_namespaced_command_expands_args_shell_and_file(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _user_command(isolated_home, "git/commit.toml", COMMIT)
    (workspace / "notes.txt").write_text("NOTE-BODY !{touch from-file}\n")
    mock_llm_thread.enqueue({"text": "feat: done"})
    proc = run_gemtui(
        ["-p", "/git:commit fix; touch pwned !{touch from-arg}", "--approval-mode", "yolo"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "feat: done"
    text = _sent_text(mock_llm_thread.requests[0])
    assert "Write a commit message for: fix; touch pwned !{touch from-arg}" in text
    # the argument reached the shell as one quoted word: nothing after ';' ran
    assert "STATUS[fix; touch pwned !{touch from-arg}]" in text
    assert "NOTE-BODY !{touch from-file}" in text
    for name in ("pwned", "from-arg", "from-file"):
        assert not (workspace / name).exists(), name


def test_shell_line_needs_approval_headless_refuses_and_sends_nothing(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _user_command(isolated_home, "mark.toml", 'prompt = "!{touch marked}"\n')
    proc = run_gemtui(["-p", "/mark"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace)
    assert proc.returncode == 1
    assert "/mark was not sent" in proc.stderr
    assert "needs approval" in proc.stderr
    assert not (workspace / "marked").exists()
    assert mock_llm_thread.requests == []


def test_default_argument_handling_appends_the_invocation(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _user_command(isolated_home, "review.toml", 'prompt = "Review the code."\n')
    mock_llm_thread.enqueue({"text": "ok"})
    proc = run_gemtui(
        ["-p", "/review src/app.py carefully"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert _sent_text(mock_llm_thread.requests[0]) == (
        "Review the code.\n\n/review src/app.py carefully"
    )


def test_untrusted_workspace_commands_do_not_load(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    folder = workspace / ".gemini" / "commands"
    folder.mkdir(parents=True)
    (folder / "evil.toml").write_text('prompt = "EXPANDED !{touch owned}"\n')
    mock_llm_thread.enqueue({"text": "plain"})
    env = _env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "/evil", "--approval-mode", "yolo"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert _sent_text(mock_llm_thread.requests[0]) == "/evil"  # sent as typed, not expanded
    assert not (workspace / "owned").exists()
    assert ".gemini/commands" in proc.stderr
    assert "not trusted" in proc.stderr
    mock_llm_thread.enqueue({"text": "expanded"})
    proc = run_gemtui(
        ["-p", "/evil", "--approval-mode", "yolo", "--trust-workspace"], env=env, cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert _sent_text(mock_llm_thread.requests[1]).startswith("EXPANDED")
    assert (workspace / "owned").exists()


def test_broken_file_is_named_and_the_others_still_work(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    broken = _user_command(isolated_home, "broken.toml", 'prompt = "unterminated\n')
    _user_command(isolated_home, "noprompt.toml", 'description = "no prompt"\n')
    _user_command(isolated_home, "hello.toml", 'prompt = "Say hello to {{args}}."\n')
    mock_llm_thread.enqueue({"text": "hi"})
    proc = run_gemtui(
        ["-p", "/hello world"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"Custom command not loaded: {broken}: invalid TOML" in proc.stderr
    assert "noprompt.toml: needs a 'prompt' string" in proc.stderr
    assert _sent_text(mock_llm_thread.requests[0]) == "Say hello to world."


def test_file_outside_or_ignored_is_refused(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _user_command(isolated_home, "leak.toml", 'prompt = "@{../outside.txt}"\n')
    _user_command(isolated_home, "hidden.toml", 'prompt = "@{keys.secret}"\n')
    (workspace.parent / "outside.txt").write_text("OUTSIDE")
    (workspace / ".gitignore").write_text("*.secret\n")
    (workspace / "keys.secret").write_text("SECRET")
    env = _env(isolated_home, mock_llm_thread.url)
    for line, why in (("/leak", "outside the workspace"), ("/hidden", "ignored")):
        proc = run_gemtui(["-p", line], env=env, cwd=workspace)
        assert proc.returncode == 1, proc.stderr
        assert why in proc.stderr
    assert mock_llm_thread.requests == []
