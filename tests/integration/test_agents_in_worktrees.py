"""``gemtui agents`` in a project lists the agents working in its git worktrees.

``gemtui -p … -w NAME`` works in ``.gemini/worktrees/NAME`` (any ``git worktree add``
path behaves the same): its run, held mid-prompt by the mock in another process, is
listed from the project with its worktree and branch, then as done once let go.
"""

from __future__ import annotations

import signal
from pathlib import Path

from gemtui.testing import MockLLMServer
from tests.support.git_worktrees import make_repo

from .helpers import FAST_NETWORK, gemtui_env, popen_gemtui, run_gemtui
from .test_agents_cli import _agents, _asked


def _patient_config(home: Path) -> None:
    """The hold lasts as long as the other processes take: no read timeout may cut it."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    config = FAST_NETWORK.replace("read_timeout = 2.0", "read_timeout = 3600.0")
    (home / "config" / "config.toml").write_text(config, encoding="utf-8")


def test_a_run_in_a_worktree_is_listed_from_the_project(
    mock_llm_thread: MockLLMServer, isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    _patient_config(isolated_home)
    mock_llm_thread.enqueue({"text": "ANSWER", "fault": "hold"})
    asked = _asked(mock_llm_thread)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    prompt = "fix the bug\n\n" + "context line\n" * 2000  # a long, many-line prompt
    run = popen_gemtui(["-p", prompt], env=env, cwd=repo.worktree)
    try:
        asked.wait()
        (row,) = _agents(isolated_home, repo.main)
        assert row["state"] == "working"
        assert row["pid"] == run.pid
        assert row["task"].startswith("fix the bug context line context line")
        assert len(row["task"]) == 200  # shortened, on one line
        assert row["task"].endswith("…")
        assert row["worktree"] == str(repo.worktree.resolve())
        assert row["branch"] == repo.branch
        # control: the row is the worktree's own; a subfolder of the project is not
        # the project, and lists nothing of its worktrees
        assert [r["id"] for r in _agents(isolated_home, repo.worktree)] == [row["id"]]
        sub = repo.main / "sub"
        sub.mkdir()
        assert _agents(isolated_home, sub) == []
        mock_llm_thread.release()
        out, err = run.communicate()
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 0, err
    assert b"ANSWER" in out
    (row,) = _agents(isolated_home, repo.main)
    assert row["state"] == "done"
    assert row["worktree"] == str(repo.worktree.resolve())


def test_a_worktree_run_killed_mid_prompt_reads_ended_unexpectedly(
    mock_llm_thread: MockLLMServer, isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    _patient_config(isolated_home)
    mock_llm_thread.enqueue({"text": "never seen", "fault": "hold"})
    asked = _asked(mock_llm_thread)
    run = popen_gemtui(
        ["-p", "long job"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=repo.worktree
    )
    asked.wait()
    listed = run_gemtui(["agents"], env=gemtui_env(isolated_home), cwd=repo.main).stdout
    assert " working " in listed  # control: alive, it reads working
    run.send_signal(signal.SIGKILL)
    run.communicate()
    mock_llm_thread.release()
    listed = run_gemtui(["agents"], env=gemtui_env(isolated_home), cwd=repo.main).stdout
    assert "ended unexpectedly" in listed
    assert " working " not in listed
    assert repo.branch in listed
