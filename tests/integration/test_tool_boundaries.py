"""What a hostile model or repository cannot get out of the file tools, proven end to end.

Each test drives the real engine against the mock server with real files: ignore rules
hold for every tool (through symlinks too), special files and hostile patterns answer at
once instead of hanging, one read_many_files call has a bounded size, and background
commands end with the session.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

from gemtui.bus import TerminateReason
from gemtui.testing import MockLLMServer

from .conftest import SessionFactory
from .helpers import gemtui_env, popen_gemtui, run_gemtui, write_fast_config

SECRET = "TOKEN=hunter2-do-not-leak"
MAX_OUTPUT_CHARS = 1_000_000
"""read_many_files' documented cap on the text of one answer."""


def _responses(request_json: dict[str, Any]) -> dict[str, dict[str, Any]]:
    last = request_json["contents"][-1]
    return {
        p["functionResponse"]["id"]: p["functionResponse"]["response"]
        for p in last["parts"]
        if "functionResponse" in p
    }


def _call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id}


# -- ignore files, every tool alike -----------------------------------------------------


async def test_ignored_files_stay_hidden_from_every_tool_and_through_symlinks(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    (workspace / ".gitignore").write_text("secret.env\n")
    (workspace / ".geminiignore").write_text("private/\n")
    (workspace / "secret.env").write_text(SECRET + "\n")
    (workspace / "private").mkdir()
    (workspace / "private" / "key.txt").write_text(SECRET + "\n")
    (workspace / "public.txt").write_text("TOKEN=public-and-fine\n")
    (workspace / "link.txt").symlink_to("secret.env")
    (workspace / "keylink.txt").symlink_to("private/key.txt")
    (workspace / "alias").symlink_to("private")
    calls = [
        _call("grep_search", "grep-file", pattern="TOKEN", dir_path="secret.env"),
        _call("grep_search", "grep-link", pattern="TOKEN", dir_path="link.txt"),
        _call("grep_search", "grep-alias", pattern="TOKEN", dir_path="alias"),
        _call("grep_search", "grep-all", pattern="TOKEN"),
        _call("read_many_files", "many-all", include=["**"]),
        _call("read_many_files", "many-links", include=["link.txt", "keylink.txt"]),
        _call(
            "read_many_files",
            "many-optout",
            include=["**"],
            file_filtering_options={"respect_git_ignore": False, "respect_gemini_ignore": False},
        ),
        _call("read_file", "read-link", file_path="link.txt"),
        _call("read_file", "read-alias", file_path="alias/key.txt"),
        _call("list_directory", "ls-alias", dir_path="alias"),
        _call("glob", "glob-alias", pattern="*", dir_path="alias"),
        _call(
            "replace",
            "replace-link",
            file_path="link.txt",
            instruction="probe",
            old_string="TOKEN=h",
            new_string="TOKEN=x",
        ),
    ]
    mock_llm.enqueue({"function_calls": calls}, {"text": "done"})
    session = make_session(approval_mode="yolo")
    done = await session.send("find the token")
    assert done.reason == TerminateReason.GOAL
    sent = mock_llm.requests[1]
    assert "hunter2" not in sent.body.decode("utf-8", "replace")
    got = _responses(sent.json)
    for call_id in ("grep-file", "grep-link", "grep-alias", "read-link", "read-alias"):
        assert "ignored" in got[call_id]["error"], call_id
    for call_id in ("ls-alias", "glob-alias", "replace-link"):
        assert "ignored" in got[call_id]["error"], call_id
    assert "public-and-fine" in got["grep-all"]["output"]  # the search did run
    assert "public.txt" in got["many-all"]["output"]
    assert "link.txt" not in got["many-all"]["output"]
    assert "No files" in got["many-links"]["output"]
    assert "public.txt" in got["many-optout"]["output"]
    assert (workspace / "secret.env").read_text() == SECRET + "\n"


# -- one read_many_files call is bounded --------------------------------------------------


async def test_read_many_files_output_is_capped_and_names_what_it_left_out(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    line = "x" * 999 + "\n"
    for i in range(40):  # 40 files of 60 KB: 2.4 MB of text asked for
        (workspace / f"f{i:02}.txt").write_text(line * 60)
    mock_llm.enqueue(
        {"function_calls": [_call("read_many_files", "many", include=["*.txt"])]},
        {"text": "done"},
    )
    session = make_session()
    done = await session.send("read everything")
    assert done.reason == TerminateReason.GOAL
    body = mock_llm.requests[1].body
    assert len(body) < MAX_OUTPUT_CHARS * 1.2
    output = _responses(mock_llm.requests[1].json)["many"]["output"]
    assert "--- f00.txt ---" in output
    assert "left out of this answer" in output
    assert "- f39.txt (output limit of this call reached)" in output


# -- special files and hostile patterns answer at once ----------------------------------


def test_special_files_and_hostile_patterns_never_hang_a_run(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A FIFO (also behind a link), a backtracking regex, glob and ignore pattern."""
    write_fast_config(isolated_home)
    os.mkfifo(workspace / "pipe")
    (workspace / "pipelink").symlink_to("pipe")
    (workspace / "victim.txt").write_text("a" * 40 + "!\n")
    (workspace / ("a" * 200)).write_text("long name\n")
    stars = "*a" * 20 + "*c"
    (workspace / ".gitignore").write_text(stars + "\n")
    calls = [
        _call("write_file", "write-fifo", file_path="pipe", content="x"),
        _call(
            "replace",
            "replace-fifo",
            file_path="pipelink",
            instruction="i",
            old_string="a",
            new_string="b",
        ),
        _call("read_file", "read-link", file_path="pipelink"),
        _call("read_many_files", "many", include=["**"]),
        _call("grep_search", "grep-tree", pattern="long name"),
        _call("grep_search", "grep-exclude", pattern="!", exclude_pattern="^(a+)+$"),
        _call("grep_search", "grep-lookahead", pattern="(?=a)b"),
        _call("glob", "glob-stars", pattern=stars),
        _call("list_directory", "ls", dir_path="."),
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--yolo", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
        timeout=60,  # a hang guard: a FIFO read or a backtracking pattern never returns
    )
    assert proc.returncode == 0, proc.stderr
    results = _responses(mock_llm_thread.requests[1].json)
    for call_id in ("write-fifo", "replace-fifo", "read-link"):
        assert "not a regular file" in results[call_id]["error"], call_id
    assert "- pipelink (Path is a FIFO (named pipe)" in results["many"]["output"]
    assert "long name" in results["grep-tree"]["output"]
    assert "victim.txt" in results["grep-exclude"]["output"]
    assert "lookahead" in results["grep-lookahead"]["error"]
    assert "No files found" in results["glob-stars"]["output"]
    assert "victim.txt" in results["ls"]["output"]
    assert "E0000" not in proc.stderr
    assert "re2.cc" not in proc.stderr


# -- background commands belong to the session ------------------------------------------


def _gone(pid: int) -> bool:
    """No such process, or only its zombie waiting for init to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def _wait_gone(pids: list[int], limit: float = 5.0) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if all(_gone(p) for p in pids):
            return True
        time.sleep(0.01)  # polling interval, not synchronisation
    return False


def _pids(workspace: Path) -> list[int]:
    return [int((workspace / name).read_text()) for name in ("leader.pid", "child.pid")]


def _pids_written(workspace: Path) -> bool:
    """Both pid files complete (bash writes the number and a newline)."""
    try:
        return all(
            (workspace / name).read_text().endswith("\n") for name in ("leader.pid", "child.pid")
        )
    except OSError:
        return False


BACKGROUND = _call(
    "run_shell_command",
    "bg",
    command="echo $$ > leader.pid; sleep 1000 & echo $! > child.pid; wait",
    is_background=True,
)


def _kill_leftovers(workspace: Path) -> None:
    for name in ("leader.pid", "child.pid"):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((workspace / name).read_text()), signal.SIGKILL)


def test_background_command_ends_when_a_headless_run_ends(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"function_calls": [BACKGROUND]}, {"text": "started it"})
    try:
        proc = run_gemtui(
            ["-p", "start a server", "--yolo"],
            env=gemtui_env(isolated_home, mock_llm_thread.url),
            cwd=workspace,
        )
        assert proc.returncode == 0, proc.stderr
        pids = _pids(workspace)
        assert _wait_gone(pids), f"background processes {pids} outlived gemtui"
    finally:
        _kill_leftovers(workspace)


def test_a_job_a_foreground_command_left_running_ends_with_the_run(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """`npm run dev &` without is_background: bash returns at once and the job stays in
    its group. It is the session's all the same and must not outlive gemtui."""
    write_fast_config(isolated_home)
    left = _call(
        "run_shell_command",
        "fg",
        command="echo $$ > leader.pid; sleep 1000 & echo $! > child.pid",
    )
    mock_llm_thread.enqueue({"function_calls": [left]}, {"text": "started it"})
    try:
        proc = run_gemtui(
            ["-p", "start a server", "--yolo"],
            env=gemtui_env(isolated_home, mock_llm_thread.url),
            cwd=workspace,
        )
        assert proc.returncode == 0, proc.stderr
        pids = _pids(workspace)
        assert _wait_gone(pids), f"processes {pids} left by a command outlived gemtui"
    finally:
        _kill_leftovers(workspace)


def test_background_command_ends_when_a_headless_run_is_terminated(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        {"function_calls": [BACKGROUND]},
        {"text": "waiting", "chunks": 2, "fault": "stall", "after_chunks": 1},
    )
    proc = popen_gemtui(
        ["-p", "start a server", "--yolo"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    try:
        deadline = time.monotonic() + 30
        while len(mock_llm_thread.requests) < 2 or not _pids_written(workspace):
            assert proc.poll() is None
            assert time.monotonic() < deadline
            time.sleep(0.01)  # polling interval, not synchronisation
        pids = _pids(workspace)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 130
        assert _wait_gone(pids), f"background processes {pids} outlived gemtui"
    finally:
        if proc.poll() is None:
            proc.kill()
        _kill_leftovers(workspace)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_background_command_ends_when_the_tui_quits(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The real `gemtui` TUI on a pseudo-terminal: Ctrl-C twice quits, the job goes too."""
    import pty
    import subprocess
    import sys
    import threading

    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"function_calls": [BACKGROUND]}, {"text": "started it"})
    main_fd, child_fd = pty.openpty()
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    env.update({"TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "gemtui", "start a server", "--yolo"],
        env=env,
        cwd=workspace,
        stdin=child_fd,
        stdout=child_fd,
        stderr=child_fd,
        start_new_session=True,
    )
    os.close(child_fd)

    def drain() -> None:  # the screen output must flow or the app blocks writing it
        with contextlib.suppress(OSError):
            while os.read(main_fd, 65536):
                pass

    threading.Thread(target=drain, daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        while len(mock_llm_thread.requests) < 2 or not _pids_written(workspace):
            assert proc.poll() is None
            assert time.monotonic() < deadline
            time.sleep(0.01)  # polling interval, not synchronisation
        pids = _pids(workspace)
        assert not any(_gone(p) for p in pids)
        while proc.poll() is None and time.monotonic() < deadline:
            os.write(main_fd, b"\x03")  # Ctrl-C: the first arms quitting, the next quits
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.5)
        assert proc.poll() == 0
        assert _wait_gone(pids), f"background processes {pids} outlived the TUI"
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main_fd)
        _kill_leftovers(workspace)
