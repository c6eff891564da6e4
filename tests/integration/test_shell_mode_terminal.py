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

import pytest

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


def _run_app(workspace: Path, env: dict[str, str], *flags: str) -> tuple[int, int]:
    """The real app on a new pseudo terminal: (pid, the terminal's fd)."""
    replay = workspace.parent / "replay.jsonl"
    replay.write_text("")
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real app on a terminal
        os.chdir(workspace)
        os.execve(
            sys.executable,
            [sys.executable, "-m", "gemtui", "--fake-responses", str(replay), *flags],
            env,
        )
    return pid, fd


def _terminal_program(fd: int, line: str, *, in_shell_mode: bool = False) -> bytes:
    """Type ``!line`` (``line`` once shell mode is on) and run it with Ctrl+S; what the
    question showed."""
    question = bytearray()
    os.write(fd, f"{'' if in_shell_mode else '!'}{line}\r".encode())
    assert _read_until(fd, b"Ctrl+S runs", question), question[-2000:]
    os.write(fd, b"\x13")
    return bytes(question)


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
def test_a_terminal_program_runs_in_the_sandbox_under_s(
    isolated_home: Path, workspace: Path, tmp_path: Path, sandboxed: bool
) -> None:
    """`!vim` under -s: it cannot write outside the workspace nor see a secret variable,
    and interactive programs still work there (a pager; a REPL with its own /dev/tty,
    whose Ctrl+C interrupts a line instead of ending it); without -s (the control) the
    same vim line writes the file outside and sees the variable."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "notes.txt").write_text("LESS-SHOWS-THIS-LINE\n")
    env = gemtui_env(isolated_home, key=None)
    env.update(TERM="xterm-256color", LESS="", COLUMNS="110", LINES="30")
    env.update(HOME=str(isolated_home), DEPLOY_TOKEN="tok-0123456789abcdef")
    (workspace / "plant.vim").write_text(  # a script the project supplies
        f"silent! redir! > {outside}/planted\nsilent! echo 1\nsilent! redir END\n"
        'redir! > env.txt\necho exists("$DEPLOY_TOKEN")\nredir END\ncquit 7\n'
    )
    pid, fd = _run_app(workspace, env, *(["-s"] if sandboxed else []))
    seen, pager, repl, editor = bytearray(), bytearray(), bytearray(), bytearray()
    try:
        assert _read_until(fd, b"replay", seen), seen[-2000:]
        asked = _terminal_program(fd, "less notes.txt")
        assert (b"run on the terminal in the sandbox" in asked) is sandboxed
        assert _read_until(fd, b"LESS-SHOWS-THIS-LINE", pager), pager[-2000:]
        os.write(fd, b"q")
        assert _read_until(fd, b"exited with code 0", pager), pager[-2000:]
        _terminal_program(fd, "python3", in_shell_mode=True)
        assert _read_until(fd, b">>> ", repl), repl[-2000:]
        os.write(fd, b'print("TTY", open("/dev/tty", "rb").isatty())\r')
        # the next prompt, not just the output: between lines readline gives the terminal
        # back as it found it, so a Ctrl+C sent before ``>>> `` could be read as text
        assert _read_until(fd, b"TTY True\r\n>>> ", repl), repl[-2000:]
        # Ctrl+C interrupts the line, and gemtui lives on (the exit notice below). A Ctrl+C
        # typed right as the prompt appears is sometimes not seen by the REPL (about one
        # run in four on a loaded machine; filed): typed again, as a person would.
        for _ in range(3):
            os.write(fd, b"\x03")
            if _read_until(fd, b"KeyboardInterrupt", repl, timeout=10):
                break
        else:
            raise AssertionError(repl[-2000:])
        os.write(fd, b"exit(5)\r")  # each program its own code: toasts stay a while
        assert _read_until(fd, b"exited with code 5", repl), repl[-2000:]
        _terminal_program(fd, "vim -u NONE -N -es -S plant.vim", in_shell_mode=True)
        assert _read_until(fd, b"exited with code 7", editor), editor[-2000:]
        if sandboxed:  # the rest of the notice says where it ran
            assert _read_until(fd, b"workspace only)", editor), editor[-2000:]
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    assert (workspace / "env.txt").read_text().split() == (["0"] if sandboxed else ["1"])
    assert (outside / "planted").exists() is not sandboxed
    assert (b"in the sandbox" in pager + repl + editor) is sandboxed


def test_a_terminal_program_leaves_a_card_with_its_exit_code(
    isolated_home: Path, workspace: Path
) -> None:
    """Once a handed-over program ends, the conversation keeps a card naming it and its
    exit code (the program's own screen is gone; a toast vanishes) — a failing one and a
    killed one too — and the status line is idle again. The control: the program did run (its screen)."""
    (workspace / "notes.txt").write_text("LESS-SHOWS-THIS-LINE\n")
    env = gemtui_env(isolated_home, key=None)
    env.update(TERM="xterm-256color", LESS="", COLUMNS="120", LINES="30")
    env["HOME"] = str(isolated_home)
    pid, fd = _run_app(workspace, env)
    seen, pager, after = bytearray(), bytearray(), bytearray()
    try:
        assert _read_until(fd, b"replay", seen), seen[-2000:]
        _terminal_program(fd, "less notes.txt")
        assert _read_until(fd, b"LESS-SHOWS-THIS-LINE", pager), pager[-2000:]  # it ran
        os.write(fd, b"q")
        assert _read_until(fd, b"on the terminal: exited with code 0", after), after[-2000:]
        _terminal_program(fd, "less no-such-file.txt", in_shell_mode=True)
        assert _read_until(fd, b"on the terminal: exited with code 1", after), after[-2000:]
        killed = "vim -u NONE -N -es -c \"call system('kill -9 ' . getpid())\""
        _terminal_program(fd, killed, in_shell_mode=True)
        assert _read_until(fd, b"on the terminal: killed by signal 9", after), after[-2000:]
        assert b"running" not in after  # the status line went back to idle
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
