"""An interactive `!` command gets the real terminal: the app suspends and comes back.

Pilot's headless driver cannot suspend, so this runs the real `gemtui` in a pseudo
terminal (Textual's Linux driver), opens `less` through `!`, quits it, and checks the
app drew itself again and said how the command ended.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

from .helpers import gemtui_env


def _read_until(fd: int, wanted: bytes, seen: bytearray, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while wanted not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        seen.extend(chunk)
    return True


def test_less_runs_on_the_terminal_and_the_app_resumes(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("LESS-SHOWS-THIS-LINE\n")
    replay = workspace.parent / "replay.jsonl"
    replay.write_text("")
    env = gemtui_env(isolated_home, key=None)
    env.update(TERM="xterm-256color", LESS="", COLUMNS="100", LINES="30")
    env["HOME"] = str(isolated_home)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real app on a terminal
        os.chdir(workspace)
        os.execve(
            sys.executable,
            [sys.executable, "-m", "gemtui", "--fake-responses", str(replay)],
            env,
        )
    seen = bytearray()
    try:
        assert _read_until(fd, b"replay", seen), seen[-2000:]
        os.write(fd, b"!less notes.txt\r")
        assert _read_until(fd, b"Ctrl+S runs", seen), seen[-2000:]
        os.write(fd, b"\x13")  # Ctrl+S: run it
        mark = len(seen)
        assert _read_until(fd, b"LESS-SHOWS-THIS-LINE", seen), seen[-2000:]
        assert b"\x1b[?1049l" in seen[mark:]  # the app left the alternate screen for less
        mark = len(seen)
        os.write(fd, b"q")
        assert _read_until(fd, b"exited with code 0", seen), seen[-2000:]
        assert b"\x1b[?1049h" in seen[mark:]  # and came back
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
