"""No tool call or search keeps `gemtui -p` from exiting within a second of Ctrl-C/SIGTERM.

Each test runs the real command against the mock server, which asks for one hostile tool
call and then streams a stalled answer. The signal is sent once the tool is running or has
run — detected by polling (the mock's request log, the FIFO's reader side, /proc), never by
sleeping. Nothing else can end the run (the answer is held, the FIFO never written), so an
exit with 130 is the signal's doing; the wait for it is only a hang guard, not a stopwatch.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, popen_gemtui, write_fast_config

STALLED_ANSWER = {"text": "still thinking", "chunks": 2, "fault": "hold", "after_chunks": 1}
"""Never released: only the signal ends the run."""

SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_until(proc: subprocess.Popen[bytes], ready: Callable[[], bool], limit: float) -> None:
    deadline = time.monotonic() + limit
    while not ready():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
        assert time.monotonic() < deadline, "the tool never started"
        time.sleep(0.01)  # polling interval, not synchronisation


def _interrupt(proc: subprocess.Popen[bytes], sig: signal.Signals) -> tuple[int, str]:
    proc.send_signal(sig)
    try:
        code = proc.wait(timeout=60)  # a hang guard: without the signal it never exits
    finally:
        if proc.poll() is None:
            proc.kill()
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert "Traceback" not in err
    return code, out


def _tool_results(stdout: str) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [line for line in lines if line["type"] == "tool_result"]


def _start(
    mock: MockLLMServer, home: Path, workspace: Path, call: dict[str, object]
) -> subprocess.Popen[bytes]:
    write_fast_config(home)
    mock.enqueue({"function_calls": [call]}, STALLED_ANSWER)
    return popen_gemtui(
        ["-p", "go", "--yolo", "--output-format", "stream-json"],
        env=gemtui_env(home, mock.url),
        cwd=workspace,
    )


@pytest.fixture
def fifo(workspace: Path) -> Iterator[Path]:
    path = workspace / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("sig", SIGNALS)
def test_read_file_of_a_fifo_is_refused_and_exit_is_prompt(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    fifo: Path,
    sig: signal.Signals,
) -> None:
    writer: list[int] = []

    def reader_waiting_or_tool_done() -> bool:
        """A reader blocked on the FIFO (the old hang), or the tool already answered."""
        if len(mock_llm_thread.requests) >= 2:
            return True
        try:  # succeeds only while someone has the FIFO open for reading
            writer.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as exc:
            assert exc.errno == errno.ENXIO  # noqa: PT017 - a probe, not the test
            return False
        return True  # the writer stays open (never written) so such a reader blocks

    proc = _start(
        mock_llm_thread,
        isolated_home,
        workspace,
        {"name": "read_file", "args": {"file_path": "pipe"}, "id": "r1"},
    )
    try:
        _wait_until(proc, reader_waiting_or_tool_done, 30)
        code, out = _interrupt(proc, sig)
    finally:
        for fd in writer:
            os.close(fd)
    assert code == 130
    [result] = _tool_results(out)
    assert result["status"] == "error"
    assert "FIFO" in str(result["error"])


@pytest.mark.parametrize("sig", SIGNALS)
def test_catastrophic_grep_pattern_cannot_freeze_the_program(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    sig: signal.Signals,
) -> None:
    (workspace / "victim.txt").write_text("a" * 40 + "!\n")
    proc = _start(
        mock_llm_thread,
        isolated_home,
        workspace,
        {"name": "grep_search", "args": {"pattern": "^(a+)+$"}, "id": "g1"},
    )
    _wait_until(proc, lambda: len(mock_llm_thread.requests) >= 1, 30)
    cpu_at_request = _cpu_seconds(proc.pid)
    _wait_until(
        proc,
        # the search answered, or it is burning CPU (the old backtracking freeze)
        lambda: len(mock_llm_thread.requests) >= 2 or _cpu_seconds(proc.pid) > cpu_at_request + 1,
        30,
    )
    code, out = _interrupt(proc, sig)
    assert code == 130
    [result] = _tool_results(out)
    assert result["status"] == "success"
    assert "No matches" in str(result["output"])


def _has_open(pid: int, target: Path) -> bool:
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        return any(os.readlink(fd_dir / fd) == str(target) for fd in os.listdir(fd_dir))
    except OSError:
        return False


@pytest.mark.parametrize("sig", SIGNALS)
def test_replace_on_a_175mb_file_is_capped_and_exit_is_prompt(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    sig: signal.Signals,
) -> None:
    big = workspace / "big.txt"
    with big.open("wb") as fh:  # sparse: 175 MB on paper, one line of text on disk
        fh.write(b"needle line\n")
        fh.truncate(175 * 1024 * 1024)
    before = big.stat()
    proc = _start(
        mock_llm_thread,
        isolated_home,
        workspace,
        {
            "name": "replace",
            "args": {
                "file_path": "big.txt",
                "instruction": "change the needle",
                "old_string": "needle line",
                "new_string": "changed line",
            },
            "id": "e1",
        },
    )
    _wait_until(
        proc,
        # the edit answered, or the process is reading the big file (the old path)
        lambda: len(mock_llm_thread.requests) >= 2 or _has_open(proc.pid, big.resolve()),
        30,
    )
    code, out = _interrupt(proc, sig)
    assert code == 130
    [result] = _tool_results(out)
    assert result["status"] == "error"
    assert "20MB limit" in str(result["error"])
    after = big.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
