"""Shell policy and protected paths through a real headless run against the mock server.

The model (scripted) asks for evasions from the corpus next to the plain allowed command;
the files on disk say what ran. A write to ``.git/config`` in ``auto_edit`` followed by an
allowed ``git status`` must not run code chosen by the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer
from tests.integration.helpers import gemtui_env, run_gemtui, write_fast_config
from tests.shell_evasions import ALLOW_SIDE, DENY_SIDE, run_bash, scratch_repo

ALLOW_SAMPLE = [c.command for c in ALLOW_SIDE[::4]]
DENY_SAMPLE = [c.command for c in DENY_SIDE[::4]]


def _policy(home: Path, rules: str) -> None:
    cfg = home / "config"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "policy.toml").write_text(rules, encoding="utf-8")


def _shell_calls(commands: list[str]) -> dict[str, Any]:
    return {
        "function_calls": [
            {"name": "run_shell_command", "args": {"command": c}, "id": f"c{i}"}
            for i, c in enumerate(commands)
        ]
    }


def _results(stdout: str) -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return {line["id"]: line for line in lines if line["type"] == "tool_result"}


def test_allow_side_evasions_do_not_run_while_git_status_does(
    mock_llm_thread: MockLLMServer, isolated_home: Path, tmp_path: Path
) -> None:
    repo = scratch_repo(tmp_path / "repo")
    write_fast_config(isolated_home)
    _policy(
        isolated_home,
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\n'
        'decision = "allow"\n',
    )
    commands = [*ALLOW_SAMPLE, "git status"]
    mock_llm_thread.enqueue(_shell_calls(commands), {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(proc.stdout)
    assert not (repo / "marker").exists()
    last = results[f"c{len(commands) - 1}"]
    assert last["status"] == "success"
    assert "On branch" in last["output"]
    for i, command in enumerate(ALLOW_SAMPLE):
        assert results[f"c{i}"]["status"] == "error", command


def test_deny_side_evasions_keep_the_victim_under_yolo(
    mock_llm_thread: MockLLMServer, isolated_home: Path, tmp_path: Path
) -> None:
    repo = scratch_repo(tmp_path / "repo")
    write_fast_config(isolated_home)
    _policy(
        isolated_home,
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\n',
    )
    commands = [*DENY_SAMPLE, "ls"]
    mock_llm_thread.enqueue(_shell_calls(commands), {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--yolo", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(proc.stdout)
    assert (repo / "victim").read_text() == "precious\n"
    last = results[f"c{len(commands) - 1}"]
    assert last["status"] == "success"
    assert "victim" in last["output"]
    for i, command in enumerate(DENY_SAMPLE):
        assert results[f"c{i}"]["status"] == "error", command


def test_auto_edit_cannot_plant_a_git_hook_that_an_allowed_git_status_runs(
    mock_llm_thread: MockLLMServer, isolated_home: Path, tmp_path: Path
) -> None:
    """The issue's reproduction: write .git/config with core.fsmonitor, then git status."""
    repo = scratch_repo(tmp_path / "repo")
    write_fast_config(isolated_home)
    _policy(
        isolated_home,
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\n'
        'decision = "allow"\n',
    )
    config = (repo / ".git" / "config").read_text()
    planted = config + "[core]\n\tfsmonitor = touch marker; false\n"
    hook = "#!/bin/sh\ntouch marker\n"
    mock_llm_thread.enqueue(
        {
            "function_calls": [
                {
                    "name": "write_file",
                    "args": {"file_path": ".git/config", "content": planted},
                    "id": "w1",
                },
                {
                    "name": "write_file",
                    "args": {"file_path": "./src/../.git/hooks/post-checkout", "content": hook},
                    "id": "w2",
                },
                {
                    "name": "write_file",
                    "args": {"file_path": ".gemtui/config.toml", "content": "x = 1\n"},
                    "id": "w3",
                },
                {"name": "write_file", "args": {"file_path": "ok.txt", "content": "ok\n"}},
            ]
        },
        _shell_calls(["git status"]),
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "--approval-mode", "auto_edit", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(proc.stdout)
    assert (repo / ".git" / "config").read_text() == config
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()
    assert not (repo / ".gemtui").exists()
    assert (repo / "ok.txt").read_text() == "ok\n"  # ordinary edits still auto-approved
    assert results["c0"]["status"] == "success"
    assert not (repo / "marker").exists()
    for call in ("w1", "w2", "w3"):
        assert results[call]["status"] == "error"


_BARE_CONFIG = (
    "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
    '\tfsmonitor = "touch ../marker; false"\n'
)
_BARE_REPO = {
    "sub/config": _BARE_CONFIG,
    "sub/objects/keep": "",
    "sub/refs/keep": "",
    "sub/HEAD": "ref: refs/heads/main\n",
}


def test_a_bare_repository_written_by_hand_is_proven_to_run_its_config(tmp_path: Path) -> None:
    """The attack below is not vacuous: these four files make ``git status`` in ``sub``
    run the config's fsmonitor command, with no ``.git`` anywhere in the paths."""
    repo = scratch_repo(tmp_path / "repo")
    for name, content in _BARE_REPO.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(content)
    run_bash("git status", repo / "sub")
    assert (repo / "marker").exists()


def test_auto_edit_cannot_plant_a_bare_repository_that_an_allowed_git_status_runs(
    mock_llm_thread: MockLLMServer, isolated_home: Path, tmp_path: Path
) -> None:
    """``sub/HEAD`` + ``objects/`` + ``refs/`` + ``config`` make ``sub`` a repository; git
    status run there (``dir_path``) would execute its ``core.fsmonitor``."""
    repo = scratch_repo(tmp_path / "repo")
    write_fast_config(isolated_home)
    _policy(
        isolated_home,
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\n'
        'decision = "allow"\n',
    )
    writes = [
        {"name": "write_file", "args": {"file_path": name, "content": content}, "id": f"w{i}"}
        for i, (name, content) in enumerate(_BARE_REPO.items())
    ]
    shell = {"command": "git status", "dir_path": "sub"}
    mock_llm_thread.enqueue(
        {"function_calls": writes},
        {"function_calls": [{"name": "run_shell_command", "args": shell, "id": "c0"}]},
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "--approval-mode", "auto_edit", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(proc.stdout)
    assert not (repo / "marker").exists()
    assert results["w0"]["status"] == "success"  # an ordinary file named config
    assert results["w3"]["status"] == "error"  # HEAD would make sub a repository
    assert not (repo / "sub" / "HEAD").exists()
    assert results["c0"]["status"] == "success"


def test_yolo_may_still_write_into_git(
    mock_llm_thread: MockLLMServer, isolated_home: Path, tmp_path: Path
) -> None:
    repo = scratch_repo(tmp_path / "repo")
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        {
            "function_calls": [
                {"name": "write_file", "args": {"file_path": ".git/info/x", "content": "y\n"}}
            ]
        },
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "--yolo"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=repo
    )
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".git" / "info" / "x").read_text() == "y\n"
