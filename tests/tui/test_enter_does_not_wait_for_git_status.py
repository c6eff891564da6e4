"""Enter sends the first prompt without waiting for ``git status`` (issue 34).

The environment (date, listing, git status) joins the system instruction. In a large
repository ``git status`` takes seconds, and on a loaded machine even a small one may
still run when a person presses Enter: a prompt typed at the screen never waits for it;
the environment joins the first request after it is gathered. A headless run has nobody
waiting at a screen and keeps its environment in the first request.

The hold is real: ``git`` on PATH is a script that, for the environment's ``git status``,
says it started and then blocks until the test releases it, then runs the real git.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gemtui.agent import environment_context
from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.ui_choice import read_ui_choice
from gemtui.testing import MockLLMServer
from gemtui.tui.launch import build_app
from tests.integration.helpers import gemtui_env, popen_gemtui, write_fast_config
from tests.tui.helpers import Messages


@dataclass
class HeldGit:
    """A ``git`` that holds the environment's ``git status`` until ``release``."""

    bin_dir: Path
    entered: Path
    """A FIFO the held ``git status`` writes to once it started (read: it is held now)."""
    gate: Path
    """A FIFO the held ``git status`` reads before it runs the real git (opened before it
    says it started, so a release written at once is not lost)."""

    def wait_entered(self) -> None:
        self.entered.read_text()

    def release(self) -> None:
        """Let the held ``git status`` go on (nothing happens if none is waiting)."""
        with contextlib.suppress(OSError):  # ENXIO: no git is waiting at the gate
            fd = os.open(self.gate, os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, b"go\n")
            os.close(fd)


@pytest.fixture
def held_git(tmp_path: Path) -> Iterator[HeldGit]:
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "held-bin"
    bin_dir.mkdir()
    held = HeldGit(bin_dir, tmp_path / "entered", tmp_path / "gate")
    os.mkfifo(held.entered)
    os.mkfifo(held.gate)
    script = bin_dir / "git"
    script.write_text(
        "#!/bin/sh\n"
        'case " $* " in\n'
        f'  *" status --porcelain=v1 "*) exec 3<> "{held.gate}"; echo in > "{held.entered}";'
        " read go <&3;;\n"
        "esac\n"
        f'exec "{real}" "$@"\n'
    )
    script.chmod(0o755)
    try:
        yield held
    finally:
        held.release()  # never leave a git process blocked behind a failed test


def _repo(root: Path) -> None:
    """A git repository on branch ``trunk`` with one commit (the real git, not held)."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for args in (["init", "-q", "-b", "trunk", "."], ["commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    (root / "pelican-notes.txt").write_text("Pelicans nest on islands.\n")


def _system(server: MockLLMServer, n: int) -> str:
    body = server.requests[n].json or {}
    return "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])


async def test_enter_sends_the_first_prompt_while_git_status_is_held(
    mock_llm: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    held_git: HeldGit,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _repo(workspace)
    write_fast_config(isolated_home)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm.url)
    monkeypatch.setenv("PATH", f"{held_git.bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(environment_context, "GIT_TIMEOUT", 600.0)  # held, not given up
    mock_llm.enqueue({"text": "First answer."})
    mock_llm.enqueue({"text": "Second answer."})
    ui = read_ui_choice(workspace, trusted=False)
    app = build_app(None, RunOptions(workspace=workspace), ui=ui)  # as `gemtui` starts
    assert not isinstance(app, Exception)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        # the engine starts after the first frame and its groundwork runs git status: held
        await asyncio.to_thread(held_git.wait_entered)
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
        assert len(mock_llm.requests) == 1, "the first prompt went while git was held"
        first = _system(mock_llm, 0)
        assert first.startswith("You are gemtui")  # the core prompt is all there
        assert "- Git:" not in first  # git status is held: no environment yet
        assert "pelican-notes.txt" not in first
        held_git.release()
        assert app.session is not None
        await app.session.prepare()  # the groundwork ends once git answers
        mark = len(seen.seen)
        await pilot.press(*"again", "enter")
        await seen.wait_event(AgentFinished, after=mark)
    second = _system(mock_llm, 1)
    assert "- Git: branch trunk" in second, "the environment joins the next request"
    assert "pelican-notes.txt" in second
    assert f"Workspace root: {workspace}" in second


def test_control_headless_waits_for_the_held_git_status(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, held_git: HeldGit
) -> None:
    """The hold holds: a run that waits for its environment (headless ``-p``) sends its
    request only once git is released, with git's answer in it."""
    _repo(workspace)
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    env["PATH"] = f"{held_git.bin_dir}{os.pathsep}{env['PATH']}"
    mock_llm_thread.enqueue({"text": "ok"})
    proc = popen_gemtui(["-p", "hi"], env=env, cwd=workspace)
    try:
        held_git.wait_entered()
        held_git.release()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    assert out.decode().strip() == "ok"
    [request] = mock_llm_thread.requests
    system = "".join(p.get("text", "") for p in (request.json or {})["systemInstruction"]["parts"])
    # the listing is gathered after git answered: the request waited for the release
    assert "pelican-notes.txt" in system
