"""An answer that never ends: `gemtui -p` against the mock's endless stream.

Ctrl-C (SIGINT) and SIGTERM must end the run at once however fast text arrives, and an
answer that never ends must be stopped by ``chat.max_answer_chars`` with bounded memory,
a clear message, exit 1, and what arrived printed and kept in the session store.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from gemtui.store import SessionStore
from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, popen_gemtui, run_gemtui, write_fast_config

FLOOD_WORDS = "".join(f"flood{i} " for i in range(60))
"""Small chunks of a few words: the most frames (and per-chunk work) per second. The
words differ: a short passage repeated over and over is a loop, cut as one."""

BIG_CHUNK = "".join(f"deluge{i} " for i in range(1800))
"""About 19,000 characters a frame: the most text per second."""

EXIT_BOUND = 1.0
"""Generous for a loaded machine; measured about 0.03-0.1 s here (see bench/run.py)."""


class _Reader:
    """Drains a pipe in a thread (as a terminal would) and says when enough arrived."""

    def __init__(self, fd: int) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self._enough = threading.Event()
        self._want = 0
        self._thread = threading.Thread(target=self._run, args=(fd,), daemon=True)
        self._thread.start()

    def _run(self, fd: int) -> None:
        while data := os.read(fd, 1 << 16):
            self.chunks.append(data)
            self.size += len(data)
            if self.size >= self._want:
                self._enough.set()
        self._enough.set()

    def wait_for(self, size: int, timeout: float) -> bool:
        self._want = size
        if self.size >= size:
            return True
        return self._enough.wait(timeout) and self.size >= size

    def text(self) -> str:
        self._thread.join(timeout=10)
        return b"".join(self.chunks).decode()


class _PeakRss:
    """The child's own peak RSS in kB (``VmHWM``), read from /proc while it runs.

    ``wait4``'s ``ru_maxrss`` is not the child's own: the child starts as a vfork of this
    test process, and the kernel keeps the larger of the two, so late in a long pytest run
    (hundreds of MB) it reported pytest's size. The high-water mark only grows, so the
    last reading before the child exits is its peak."""

    def __init__(self, pid: int) -> None:
        self.kb = 0
        self._status = Path(f"/proc/{pid}/status")
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pause = threading.Event()
        while True:
            try:
                found = re.search(r"^VmHWM:\s+(\d+) kB", self._status.read_text(), re.M)
            except OSError:  # reaped
                return
            if found is None:  # exited: a zombie has no memory left to read
                return
            self.kb = max(self.kb, int(found.group(1)))
            pause.wait(0.005)  # a sampling interval, not a wait for anything

    def result(self) -> int:
        """The peak, once the child is gone (a reading of 0 would mean none was made)."""
        self._thread.join(timeout=10)
        assert self.kb > 10_000, f"no plausible reading of the child's memory: {self.kb} kB"
        return self.kb


def _wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int, float, int]:
    """(exit code, seconds until it exited, ``ru_maxrss`` in kB, see ``_PeakRss``) — or
    kill it and fail."""
    result: list[tuple[int, float, int]] = []

    def reap() -> None:
        _, status, usage = os.wait4(proc.pid, 0)
        result.append((os.waitstatus_to_exitcode(status), time.monotonic(), usage.ru_maxrss))

    start = time.monotonic()
    waiter = threading.Thread(target=reap, daemon=True)
    waiter.start()
    waiter.join(timeout)
    if not result:
        proc.kill()
        waiter.join(10)
        pytest.fail(f"gemtui was still running {timeout} s later")
    proc.returncode = result[0][0]
    code, ended, rss = result[0]
    return code, ended - start, rss


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("text", [FLOOD_WORDS, BIG_CHUNK], ids=["small-chunks", "big-chunks"])
def test_a_signal_during_a_flood_exits_130_at_once(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    sig: signal.Signals,
    text: str,
) -> None:
    write_fast_config(isolated_home)
    chunk = 4 if text is FLOOD_WORDS else 2000
    mock_llm_thread.enqueue({"text": text, "chunk_tokens": chunk, "endless": True})
    proc = popen_gemtui(
        ["-p", "never stop"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    out = _Reader(proc.stdout.fileno())
    assert out.wait_for(64_000, timeout=30), "the flood never reached stdout"
    os.kill(proc.pid, sig)  # not send_signal: its poll() would reap the child first
    code, took, _ = _wait_exit(proc, 20)
    stderr = proc.stderr.read().decode()
    assert code == 130, stderr
    assert took < EXIT_BOUND, f"exit took {took:.3f} s after {sig.name}"
    assert "gemtui: cancelled" in stderr
    assert "Traceback" not in stderr
    assert out.text().startswith(text), "the answer streamed until the signal"


def test_ctrl_c_after_a_long_flood_still_ends_the_run_at_once(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The reported case: Ctrl-C after a flood has run a while took 17-23 s, and memory
    grew by gigabytes. Now the cap has ended the run by then (exit 1), or Ctrl-C does."""
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": BIG_CHUNK, "chunk_tokens": 2000, "endless": True})
    proc = popen_gemtui(
        ["-p", "never stop"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    peak = _PeakRss(proc.pid)
    out = _Reader(proc.stdout.fileno())
    out.wait_for(100_000_000, timeout=60)  # 100 MB of answer, or the end of the run
    os.kill(proc.pid, signal.SIGINT)  # not send_signal: its poll() would reap the child
    code, took, _ = _wait_exit(proc, 60)
    peak_kb = peak.result()
    stderr = proc.stderr.read().decode()
    assert took < EXIT_BOUND, f"the run went on {took:.3f} s after Ctrl-C"
    assert code in (1, 130), stderr
    assert peak_kb < 400_000, f"peak RSS {peak_kb} kB"
    assert out.size < 3_000_000
    assert "Traceback" not in stderr


def test_an_answer_that_never_ends_is_capped_with_bounded_memory(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Default settings: the cap (2,000,000 characters) ends the turn, exit 1, kept text."""
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": BIG_CHUNK, "chunk_tokens": 2000, "endless": True})
    proc = popen_gemtui(
        ["-p", "never stop"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    peak = _PeakRss(proc.pid)
    out = _Reader(proc.stdout.fileno())
    code, _, _ = _wait_exit(proc, 60)
    peak_kb = peak.result()
    stderr = proc.stderr.read().decode()
    assert code == 1, stderr
    assert "The model's answer passed 2,000,000 characters and was stopped" in stderr
    assert "chat.max_answer_chars" in stderr
    assert "Traceback" not in stderr
    printed = out.text()
    assert 2_000_000 < len(printed) <= 2_000_000 + len(BIG_CHUNK) + 1, "what arrived is printed"
    assert peak_kb < 400_000, f"peak RSS {peak_kb} kB"
    with SessionStore() as store:
        [info] = store.list_sessions()
        history = store.load_history(info.id)
    assert history[-1].role == "model"
    kept = "".join(p.text or "" for p in history[-1].parts)
    assert kept == printed.rstrip("\n"), "what arrived is kept in the session"


def test_the_cap_is_a_setting_and_json_output_keeps_the_partial_answer(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, "\n[chat]\nmax_answer_chars = 50000\n")
    mock_llm_thread.enqueue({"text": FLOOD_WORDS, "chunk_tokens": 4, "endless": True})
    proc = popen_gemtui(
        ["-p", "never stop", "--output-format", "json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    out = _Reader(proc.stdout.fileno())
    code, _, _ = _wait_exit(proc, 60)
    assert code == 1
    result = json.loads(out.text())
    assert 50_000 < len(result["response"]) < 50_100
    assert result["response"].startswith("flood0 flood1")
    assert "passed 50,000 characters" in result["error"]["message"]
    assert result["error"]["code"] == 1


def test_a_zero_or_negative_cap_is_a_config_error(isolated_home: Path, workspace: Path) -> None:
    write_fast_config(isolated_home, "\n[chat]\nmax_answer_chars = 0\n")
    proc = run_gemtui(["-p", "x"], env=gemtui_env(isolated_home), cwd=workspace)
    assert proc.returncode == 52
    assert "max_answer_chars" in proc.stderr


def test_stderr_shows_a_calls_arguments_on_one_line_cut_short(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A hostile model's multi-line, escape-laden, huge arguments stay one short line."""
    write_fast_config(isolated_home)
    command = "echo one\necho two\r\n# \x1b[2J\x9b31m\u2028" + "x" * 5000
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]},
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "--yolo"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    [line] = [ln for ln in proc.stderr.split("\n") if ln.startswith("gemtui: running")]
    assert line.startswith('gemtui: running run_shell_command {"command": "echo one\\necho two')
    assert 150 < len(line) <= 240
    assert line.endswith("…")
    for raw in ("\r", "\x1b", "\x9b", "\u2028"):
        assert raw not in line
    assert "\\u001b[2J" in line


def test_a_key_cut_by_the_one_line_limit_is_masked_first(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Cutting first would leave half a key that no longer matches the mask."""
    write_fast_config(isolated_home)
    key = "sk-cutkey-" + "9" * 30
    prefix = "echo " + "p" * 170  # the key straddles the 200-character cut
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": prefix + key}}]},
        {"text": "done"},
    )
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    env["OPENAI_API_KEY"] = key
    proc = run_gemtui(["-p", "go", "--yolo"], env=env, cwd=workspace)
    [line] = [ln for ln in proc.stderr.split("\n") if ln.startswith("gemtui: running")]
    assert "sk-cutkey" not in line
    assert "[redacted]" in line


def test_short_arguments_are_shown_whole(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (workspace / "notes.txt").write_text("hello\n")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "notes.txt"}}]},
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert 'gemtui: running read_file {"file_path": "notes.txt"}\n' in proc.stderr


def _endless_arguments(wire: str) -> dict[str, object]:
    """A call whose arguments keep coming in pieces: 300 pieces of 64 KB, never closed."""
    piece = "x" * 65_536
    if wire == "openai":
        head = {"index": 0, "id": "c1", "type": "function"}
        head["function"] = {"name": "read_file", "arguments": '{"file_path": "'}
        frames: list[object] = [{"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}]
        more = {"index": 0, "function": {"arguments": piece}}
        frames += [{"choices": [{"index": 0, "delta": {"tool_calls": [more]}}]}] * 300
        return {"raw_chunks": frames}
    message = {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "m"}
    tool = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}
    delta = {"type": "input_json_delta", "partial_json": piece}
    frames = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": tool},
    ]
    frames += [{"type": "content_block_delta", "index": 0, "delta": delta}] * 300
    return {"raw_chunks": frames}


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_call_arguments_that_never_end_are_bounded(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, wire: str
) -> None:
    """Arguments held back until their call is complete never reach the answer cap, so
    the adapters bound them: the stream is stopped (and retried, then given up)."""
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, key=None)
    if wire == "openai":
        env["OPENAI_BASE_URL"] = f"{mock_llm_thread.url}/v1"
        flags = ["--provider", "openai", "-m", "qwen3-coder"]
    else:
        env["ANTHROPIC_BASE_URL"] = mock_llm_thread.url
        env["ANTHROPIC_API_KEY"] = "sk-ant-test"
        flags = ["--provider", "anthropic"]
    step = _endless_arguments(wire)
    mock_llm_thread.enqueue(*[step] * 4)  # the first try and three stream retries
    proc = popen_gemtui(["-p", "go", *flags], env=env, cwd=workspace)
    assert proc.stdout is not None
    assert proc.stderr is not None
    peak = _PeakRss(proc.pid)
    out = _Reader(proc.stdout.fileno())
    code, _, _ = _wait_exit(proc, 120)
    peak_kb = peak.result()
    stderr = proc.stderr.read().decode()
    out.text()
    assert code == 1, stderr
    assert "tool-call arguments passed 16,777,216 characters" in stderr
    assert "Traceback" not in stderr
    assert peak_kb < 400_000, f"peak RSS {peak_kb} kB"
