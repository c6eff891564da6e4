"""``-w/--worktree`` through the real `gemtui -p`, with real git and the mock server."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def _repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q", "-b", "main")
    _git(path, "config", "user.email", "t@example.com")
    _git(path, "config", "user.name", "T")
    (path / "README.md").write_text("MAIN-README\n")
    _git(path, "add", "-A")
    _git(path, "commit", "-qm", "first")
    return path


def _write(path: str, content: str, call_id: str) -> dict[str, Any]:
    call = {"name": "write_file", "args": {"file_path": path, "content": content}, "id": call_id}
    return {"function_calls": [call]}


def _line(stderr: str, label: str) -> str:
    """The command printed after ``label:`` on exit."""
    match = re.search(rf"^  {label}: (.+)$", stderr, re.MULTILINE)
    assert match, stderr
    return match.group(1)


def test_write_lands_in_the_worktree_and_the_printed_commands_resume_and_remove_it(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    repo = _repo(workspace)
    mock_llm_thread.enqueue(_write("made.txt", "MADE\n", "w1"), {"text": "written"})
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "make it", "-y", "-w", "feature-x"], env=env, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    tree = repo / ".gemini" / "worktrees" / "feature-x"
    assert (tree / "made.txt").read_text() == "MADE\n"
    assert not (repo / "made.txt").exists()  # the main checkout is untouched
    assert (tree / "README.md").read_text() == "MAIN-README\n"
    assert _git(tree, "rev-parse", "--abbrev-ref", "HEAD") == "worktree-feature-x"
    assert _git(repo, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert f"left in place at {tree.resolve()}" in proc.stderr
    # the printed resume command reuses the worktree and the conversation
    mock_llm_thread.enqueue({"text": "again"})
    resume = _line(proc.stderr, "resume")
    again = subprocess.run(
        f"{resume} -p 'and now?'".replace(" gemtui -w", f" {sys.executable} -m gemtui -w", 1),
        shell=True,
        env=env,
        cwd=isolated_home,
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert "reused" in again.stderr
    assert (tree / "made.txt").read_text() == "MADE\n"
    history = json.dumps(mock_llm_thread.requests[-1].json["contents"])
    assert "make it" in history  # the first run's conversation came back
    # the printed remove command removes the worktree and its branch
    remove = _line(again.stderr, "remove")
    subprocess.run(remove, shell=True, cwd=isolated_home, check=True, capture_output=True)
    assert not tree.exists()
    assert "worktree-feature-x" not in _git(repo, "branch", "--list")


def test_without_a_name_a_random_one_is_made_on_its_own_branch(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    repo = _repo(workspace)
    mock_llm_thread.enqueue(_write("x.txt", "X\n", "w1"), {"text": "ok"})
    proc = run_gemtui(
        ["-p", "go", "-y", "-w"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=repo
    )
    assert proc.returncode == 0, proc.stderr
    [tree] = (repo / ".gemini" / "worktrees").iterdir()
    assert re.fullmatch(r"\d{4}(-\d\d){5}-[0-9a-f]{4}", tree.name)
    assert (tree / "x.txt").is_file()
    assert not (repo / "x.txt").exists()
    assert _git(tree, "rev-parse", "--abbrev-ref", "HEAD") == f"worktree-{tree.name}"


def test_without_worktree_the_same_write_lands_in_the_checkout(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The control: the write above lands in the worktree only because of -w."""
    write_fast_config(isolated_home)
    repo = _repo(workspace)
    mock_llm_thread.enqueue(_write("made.txt", "MADE\n", "w1"), {"text": "written"})
    proc = run_gemtui(
        ["-p", "make it", "-y"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=repo
    )
    assert proc.returncode == 0, proc.stderr
    assert (repo / "made.txt").read_text() == "MADE\n"
    assert not (repo / ".gemini").exists()


def test_not_a_git_repository_exits_42_saying_why(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    proc = run_gemtui(
        ["-p", "go", "-w", "x"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 42
    assert "not in a git repository" in proc.stderr
    assert mock_llm_thread.requests == []
    assert not (workspace / ".gemini").exists()


def test_a_bad_name_exits_42_before_anything_is_made(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    repo = _repo(workspace)
    proc = run_gemtui(
        ["-p", "go", "-w", "../escape"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=repo,
    )
    assert proc.returncode == 42
    assert "cannot name a worktree" in proc.stderr
    assert not (repo / ".gemini").exists()
    assert _git(repo, "worktree", "list").count("\n") == 0  # only the main checkout


def test_a_committed_link_cannot_send_the_worktree_outside_the_repository(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """A cloned repository commits `.gemini` as a link to a folder of the person's: the
    checkout must not be written there (a login script folder, say)."""
    outside = tmp_path / "autostart"
    outside.mkdir()
    repo = _repo(workspace)
    (repo / ".gemini").symlink_to(outside, target_is_directory=True)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "link")
    proc = run_gemtui(
        ["-p", "go", "-w", "x"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=repo
    )
    assert proc.returncode == 42
    assert "symbolic link" in proc.stderr
    assert list(outside.iterdir()) == []
    assert mock_llm_thread.requests == []
    # the control: git itself follows the link and writes the checkout outside
    _git(repo, "worktree", "add", str(repo / ".gemini" / "worktrees" / "x"), "-b", "control")
    assert (outside / "worktrees" / "x" / "README.md").is_file()


def test_a_folder_of_that_name_that_is_not_its_worktree_is_not_reused(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    repo = _repo(workspace)
    other = _repo(repo / ".gemini" / "worktrees" / "x")  # another repository's checkout
    proc = run_gemtui(
        ["-p", "go", "-w", "x"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=repo
    )
    assert proc.returncode == 42
    assert "is not a worktree of" in proc.stderr
    assert mock_llm_thread.requests == []
    assert _git(other, "rev-parse", "--abbrev-ref", "HEAD") == "main"


def test_a_worktree_folder_removed_by_hand_is_made_again_on_its_branch(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    repo = _repo(workspace)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "one"}, {"text": "two"})
    assert run_gemtui(["-p", "go", "-w", "again"], env=env, cwd=repo).returncode == 0
    tree = repo / ".gemini" / "worktrees" / "again"
    (tree / "kept.txt").write_text("K\n")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-qm", "on the branch")
    subprocess.run(["rm", "-rf", str(tree)], check=True)
    proc = run_gemtui(["-p", "go", "-w", "again"], env=env, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert (tree / "kept.txt").read_text() == "K\n"  # the branch's commit is back


def _shell(command: str, call_id: str) -> dict[str, Any]:
    return {
        "function_calls": [
            {"name": "run_shell_command", "args": {"command": command}, "id": call_id}
        ]
    }


def _output(request: Any, call_id: str) -> str:
    for part in request.json["contents"][-1]["parts"]:
        fr = part.get("functionResponse")
        if fr is not None and fr["id"] == call_id:
            return json.dumps(fr["response"])
    raise AssertionError(call_id)


def test_git_works_in_a_sandboxed_worktree_and_its_hooks_stay_out_of_reach(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Under ``-s`` the worktree's shared ``.git`` (outside the workspace) is read-only in
    the box: git reads it, nothing can plant a hook in it. The control: unsandboxed, the
    same plant lands."""
    write_fast_config(isolated_home)
    repo = _repo(workspace)
    hook = repo / ".git" / "hooks" / "post-checkout"
    mock_llm_thread.enqueue(
        _shell("git log --oneline", "log"),
        _shell(f"echo 'touch /tmp/pwned' > {hook}", "plant"),
        {"text": "done"},
    )
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "go", "-y", "-s", "-w", "boxed"], env=env, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    requests = mock_llm_thread.requests
    assert "first" in _output(requests[1], "log")  # the commit, read through the shared .git
    assert "Read-only file system" in _output(requests[2], "plant")
    assert not hook.exists()
    mock_llm_thread.enqueue(_shell(f"echo 'true' > {hook}", "plant"), {"text": "done"})
    proc = run_gemtui(["-p", "go", "-y", "-w", "boxed"], env=env, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert hook.exists()
