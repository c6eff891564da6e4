"""Checkpoints and `gemtui rewind`, end to end: a real `gemtui -p -y` run against the
mock, real git in the shadow repository and in the workspace, real files."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config


def _git(ws: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(["git", *args], cwd=ws, env=env, capture_output=True, check=True)
    return out.stdout.decode()


def _git_state(ws: Path) -> dict[str, str]:
    """What the person's repository is: HEAD, index bytes, refs, stash, status, config."""
    dot = ws / ".git"
    return {
        "head": _git(ws, "rev-parse", "HEAD"),
        "index": hashlib.sha256((dot / "index").read_bytes()).hexdigest(),
        "refs": _git(ws, "for-each-ref"),
        "stash": _git(ws, "stash", "list"),
        "status": _git(ws, "status", "--porcelain=v1", "--ignored"),
        "config": (dot / "config").read_text(),
        "hooks": " ".join(sorted(p.name for p in (dot / "hooks").iterdir())),
    }


def _files(ws: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(ws)): p.read_bytes()
        for p in sorted(ws.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(ws).parts
    }


def _checkpoints(home: Path, ws: Path) -> list[dict[str, object]]:
    proc = run_gemtui(["checkpoints", "--json"], env=gemtui_env(home), cwd=ws)
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, object]] = json.loads(proc.stdout)
    return rows


def _edit_prompt(mock: MockLLMServer) -> None:
    mock.enqueue(
        {
            "function_calls": [
                {"name": "write_file", "args": {"file_path": "new.py", "content": "N\n"}},
            ]
        },
        {
            "function_calls": [
                {"name": "run_shell_command", "args": {"command": "rm keep.txt"}},
            ]
        },
        {
            "function_calls": [
                {
                    "name": "replace",
                    "args": {
                        "file_path": "src/app.py",
                        "instruction": "say two",
                        "old_string": "one",
                        "new_string": "two",
                    },
                }
            ]
        },
        {"text": "done"},
    )


def _make_repo(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("print('one')\n")
    (ws / "keep.txt").write_bytes(b"keep\r\nme\x00\n")
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "out.o").write_text("old build\n")
    _git(ws, "init", "-q")
    _git(ws, "add", "-A")
    _git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    (ws / "src" / "app.py").write_text("print('one')  # wip\n")
    _git(ws, "stash", "-q")
    (ws / "staged.txt").write_text("staged\n")
    _git(ws, "add", "staged.txt")


def test_yolo_run_then_rewind_restores_exactly_and_leaves_git_alone(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _make_repo(workspace)
    before_files, before_git = _files(workspace), _git_state(workspace)
    _edit_prompt(mock_llm_thread)
    proc = run_gemtui(
        ["-p", "change things", "-y", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "keep.txt").exists()
    assert (workspace / "src" / "app.py").read_text() == "print('two')\n", proc.stdout
    (workspace / "build" / "out.o").write_text("new build\n")  # ignored: left alone

    rows = _checkpoints(isolated_home, workspace)
    assert [r["tool"] for r in rows] == ["replace", "run_shell_command", "write_file"]
    assert all(set(r) == {"id", "created", "session", "prompt", "tool", "files"} for r in rows)
    assert [r["files"] for r in rows] == [["src/app.py"], ["keep.txt"], ["new.py"]]
    assert {r["prompt"] for r in rows} == {"change things"}
    assert len({r["session"] for r in rows}) == 1

    first = str(rows[-1]["id"])
    done = run_gemtui(["rewind", first], env=gemtui_env(isolated_home), cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "removed  new.py" in done.stdout
    assert "restored keep.txt" in done.stdout
    after = _files(workspace)
    expected = dict(before_files, **{"build/out.o": b"new build\n"})
    assert after == expected
    assert _git_state(workspace) == before_git
    assert not list(workspace.rglob(".git/gemtui*"))

    # the rewind left a checkpoint of what it replaced: rewinding to it undoes it
    rows = _checkpoints(isolated_home, workspace)
    assert rows[0]["tool"] == "rewind"
    undo = run_gemtui(["rewind", str(rows[0]["id"])], env=gemtui_env(isolated_home), cwd=workspace)
    assert undo.returncode == 0, undo.stderr
    assert (workspace / "new.py").read_text() == "N\n"
    assert not (workspace / "keep.txt").exists()
    assert (workspace / "src" / "app.py").read_text() == "print('two')\n"
    assert _git_state(workspace)["head"] == before_git["head"]


def test_plain_folder_without_git_gets_no_git(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print('one')\n")
    (workspace / "keep.txt").write_text("keep\n")
    before = _files(workspace)
    _edit_prompt(mock_llm_thread)
    proc = run_gemtui(
        ["-p", "go", "-y"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    rows = _checkpoints(isolated_home, workspace)
    done = run_gemtui(["rewind", str(rows[-1]["id"])], env=gemtui_env(isolated_home), cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert _files(workspace) == before
    assert not list(workspace.rglob(".git"))


def test_unknown_id_exits_42_and_changes_nothing(isolated_home: Path, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\n")
    proc = run_gemtui(["rewind", "nope"], env=gemtui_env(isolated_home), cwd=workspace)
    assert proc.returncode == 42
    assert "no checkpoint 'nope'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (workspace / "a.txt").read_text() == "a\n"
    empty = run_gemtui(["checkpoints"], env=gemtui_env(isolated_home), cwd=workspace)
    assert empty.returncode == 0
    assert "No checkpoints" in empty.stdout


def test_rewind_across_a_resumed_session(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A resumed session keeps its id: its checkpoints from before and after the resume are
    one session's, and rewinding to the first undoes both prompts' changes."""
    write_fast_config(isolated_home)
    (workspace / "a.txt").write_text("start\n")
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    for prompt, content, extra in (("first", "one\n", []), ("second", "two\n", ["--resume"])):
        mock_llm_thread.enqueue(
            {
                "function_calls": [
                    {"name": "write_file", "args": {"file_path": "a.txt", "content": content}}
                ]
            },
            {"text": "ok"},
        )
        proc = run_gemtui(["-p", prompt, "-y", *extra], env=env, cwd=workspace)
        assert proc.returncode == 0, proc.stderr
    assert (workspace / "a.txt").read_text() == "two\n"
    rows = _checkpoints(isolated_home, workspace)
    assert [r["prompt"] for r in rows] == ["second", "first"]
    assert rows[0]["session"] == rows[1]["session"]
    done = run_gemtui(["rewind", str(rows[1]["id"])], env=gemtui_env(isolated_home), cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert (workspace / "a.txt").read_text() == "start\n"
