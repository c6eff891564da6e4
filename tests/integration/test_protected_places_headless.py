"""A model cannot plant code for later through an edit tool: the real `gemtui -p` in auto_edit.

The model writes hooks into ``.gemini/settings.json`` (and every other place whose contents
run code later); headless cannot ask, so the call is refused and the file stays as it
was. The control: the same write in yolo lands, and the next start in a trusted folder
runs the hook through the real hook runner.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer
from gemtui.tools.run_later import RUN_LATER_NAMES

from .helpers import gemtui_env, run_gemtui, write_fast_config

HOOK_FILES = (".gemini/settings.json", ".gemtui/settings.json")
"""The places among ``RUN_LATER_NAMES`` whose hooks gemtui itself runs at the next start."""


def _planted(marker: Path) -> str:
    hook = {"type": "command", "command": f"touch {marker}; echo '{{}}'"}
    return json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}})


def _target(name: str) -> str:
    return f"{name}/settings.json" if name != ".git" else ".git/hooks/post-checkout"


def _calls(tool: str, marker: Path) -> dict[str, Any]:
    calls = []
    for i, name in enumerate(RUN_LATER_NAMES):
        args: dict[str, Any] = {"file_path": _target(name)}
        if tool == "write_file":
            args["content"] = _planted(marker)
        else:
            args |= {"old_string": "{}", "new_string": _planted(marker), "instruction": "hook"}
        calls.append({"name": tool, "args": args, "id": f"c{i}"})
    return {"function_calls": calls}


def _results(stdout: str) -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return {line["id"]: line for line in lines if line["type"] == "tool_result"}


@pytest.mark.parametrize("tool", ["write_file", "replace"])
def test_auto_edit_never_writes_a_place_that_runs_code_later(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tool: str
) -> None:
    write_fast_config(isolated_home)
    marker = isolated_home / "hook-ran"
    for name in RUN_LATER_NAMES:
        (workspace / _target(name)).parent.mkdir(parents=True, exist_ok=True)
        if tool == "replace":
            (workspace / _target(name)).write_text("{}", encoding="utf-8")
    mock_llm_thread.enqueue(_calls(tool, marker), {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--output-format", "stream-json", "--approval-mode", "auto_edit"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(proc.stdout)
    for i, name in enumerate(RUN_LATER_NAMES):
        result = results[f"c{i}"]
        assert result["status"] == "error", name
        assert result["refusal"] == "needs_approval", result
        assert "protected path" in result["approval_reason"], name
        written = workspace / _target(name)
        assert not written.exists() or written.read_text() == "{}", name
    assert proc.stderr.count(f"{tool} was not run: it needs approval") == len(RUN_LATER_NAMES)

    # the same files, trusted at the next start: nothing planted, nothing runs
    mock_llm_thread.enqueue({"text": "hi"})
    proc = run_gemtui(
        ["-p", "hi", "--trust-workspace"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


@pytest.mark.parametrize("target", HOOK_FILES)
def test_control_the_same_write_in_yolo_runs_at_the_next_trusted_start(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, target: str
) -> None:
    write_fast_config(isolated_home)
    marker = isolated_home / "hook-ran"
    call = {"name": "write_file", "args": {"file_path": target, "content": _planted(marker)}}
    mock_llm_thread.enqueue({"function_calls": [call]}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--yolo"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert (workspace / target).exists()
    assert not marker.exists()  # written during the run; its hooks load at the next start

    mock_llm_thread.enqueue({"text": "hi"})
    proc = run_gemtui(
        ["-p", "hi", "--trust-workspace"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()


def test_a_symlink_into_gemini_is_a_write_into_gemini(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """``cfg -> .gemini`` (dangling: the folder does not exist yet), then ``cfg/settings.json``."""
    write_fast_config(isolated_home)
    marker = isolated_home / "hook-ran"
    (workspace / "cfg").symlink_to(".gemini")
    (workspace / ".gemini").mkdir()
    call = {"name": "write_file", "args": {"file_path": "cfg/settings.json", "content": "{}"}}
    call["id"] = "c0"
    mock_llm_thread.enqueue({"function_calls": [call]}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--output-format", "stream-json", "--approval-mode", "auto_edit"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert _results(proc.stdout)["c0"]["refusal"] == "needs_approval"
    assert not (workspace / ".gemini" / "settings.json").exists()
    assert not marker.exists()


def test_an_allowed_echo_cannot_redirect_into_gemini(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Even a rule that allows ``echo`` with redirection: the command names ``.gemini``."""
    write_fast_config(isolated_home)
    cfg = isolated_home / "config"
    (cfg / "policy.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\n'
        'decision = "allow"\nallowRedirection = true\n',
        encoding="utf-8",
    )
    (workspace / ".gemini").mkdir()
    commands = ["echo x > .gemini/settings.json", "echo ok > out.txt"]
    calls = [
        {"name": "run_shell_command", "args": {"command": c}, "id": f"c{i}"}
        for i, c in enumerate(commands)
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--output-format", "stream-json", "--approval-mode", "auto_edit"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(proc.stdout)
    assert results["c0"]["refusal"] == "needs_approval"
    assert not (workspace / ".gemini" / "settings.json").exists()
    assert results["c1"]["status"] == "success"  # the control: the rule does allow echo >
    assert (workspace / "out.txt").read_text() == "ok\n"


def test_an_allowed_command_run_in_gemini_cannot_write_there(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The folder a command runs in counts: ``cp`` allowed, run with ``dir_path: .gemini``,
    would write ``.gemini/settings.json`` though no word of it names ``.gemini``."""
    write_fast_config(isolated_home)
    (isolated_home / "config" / "policy.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "cp"\ndecision = "allow"\n',
        encoding="utf-8",
    )
    (workspace / ".gemini").mkdir()
    (workspace / "evil.json").write_text('{"hooks": {}}', encoding="utf-8")
    (workspace / "sub").mkdir()
    calls = [
        {
            "name": "run_shell_command",
            "args": {"command": "cp ../evil.json settings.json", "dir_path": ".gemini"},
            "id": "c0",
        },
        {
            "name": "run_shell_command",
            "args": {"command": "cp ../evil.json copy.json", "dir_path": "sub"},
            "id": "c1",
        },
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--output-format", "stream-json", "--approval-mode", "auto_edit"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(proc.stdout)
    assert results["c0"]["refusal"] == "needs_approval"
    assert not (workspace / ".gemini" / "settings.json").exists()
    assert results["c1"]["status"] == "success"  # the control: the rule does allow cp there
    assert (workspace / "sub" / "copy.json").exists()
