"""Background commands belong to the session that started them.

``run_shell_command`` with ``is_background`` starts a command in its own process group
and returns at once. The group is registered here, on the session's ``ToolContext``, and
``BackgroundJobs.terminate`` ends every group (SIGTERM, then SIGKILL for what is left)
when the session closes: headless runs close it on their way out, the TUI when the app
exits, and an ``atexit`` hook catches any path that forgot. A foreground command that
leaves a job running in its group (``npm run dev &``) hands the group over too.

A command that leaves its group on purpose (``setsid``, a double fork into another
session, a service manager) is out of reach of process groups; the person approved it.

A background command's output goes through a pipe to a ``BackgroundLog``: a thread masks
it with ``StreamRedactor`` as it arrives (a secret split across two writes included) and
writes it to a 0600 file among the session's saved outputs (``<data>/tool-outputs/``,
folders 0700), never to ``$TMPDIR``. ``terminate`` removes those files with the groups:
when the session closes, or at exit through the same ``atexit`` hook. A session that
crashed leaves only masked text; the first background command of a later gemtui removes
the logs whose gemtui is gone (``remove_stale_logs``; each name carries its pid).
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from msgspec import Struct

from gemtui.tools.saved_output import SpillFile

__all__ = [
    "BackgroundJobs",
    "BackgroundLog",
    "BackgroundTask",
    "group_members",
    "log_name",
    "remove_stale_logs",
    "terminate_all",
]

TERM_GRACE_SECONDS = 0.5
"""How long the groups get to exit after SIGTERM before SIGKILL."""

_holding: set[BackgroundJobs] = set()
"""Registries with running groups, held strongly so a dropped session's jobs still end."""


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes in group ``pgid``, read from /proc where available."""
    proc = Path("/proc")
    if not proc.is_dir():
        return [pgid] if _group_alive(pgid) else []
    members: list[int] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        # after the parenthesised command name: state ppid pgrp ...
        if len(fields) >= 3 and fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def _stat_fields(pid: int) -> list[str]:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return stat[stat.rfind(")") + 2 :].split()


def _identity(pid: int) -> tuple[int, str] | None:
    """(pid, start time): a process, not just a number that may be given out again."""
    fields = _stat_fields(pid)
    return (pid, fields[19]) if len(fields) > 19 else None


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


_LOG_NAME = re.compile(r"background-(\d+)-.*\.txt")
_swept: set[Path] = set()


def log_name(call_id: str) -> str:
    """The stem of a background log: this gemtui's pid first, so a later one can tell
    whether the gemtui that wrote it is still running."""
    return f"background-{os.getpid()}-{call_id}"


def remove_stale_logs(outputs_root: Path) -> None:
    """Remove background logs under ``outputs_root/*/`` whose gemtui has gone (a crash),
    once per process. A pid given out again only keeps a log until the next sweep."""
    if outputs_root in _swept:
        return
    _swept.add(outputs_root)
    with contextlib.suppress(OSError), os.scandir(outputs_root) as sessions:
        for folder in sessions:
            if not folder.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError), os.scandir(folder.path) as files:
                for entry in files:
                    match = _LOG_NAME.fullmatch(entry.name)
                    if match and not _pid_alive(int(match.group(1))):
                        with contextlib.suppress(OSError):
                            os.unlink(entry.path)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class BackgroundLog:
    """A background command's output file, masked as the command writes it.

    The command's stdout and stderr are the write end of a pipe; a daemon thread reads
    the other end for as long as anything holds it open and writes the masked text to
    ``spill`` (flushed per read, so ``/tasks`` and ``read_file`` see it at once).
    """

    def __init__(self, spill: SpillFile, read_fd: int) -> None:
        self.path = spill.path
        self._spill = spill
        self._thread = threading.Thread(
            target=self._pump, args=(read_fd,), name=f"gemtui-bg-log-{spill.path.name}", daemon=True
        )
        self._thread.start()

    def _pump(self, fd: int) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while chunk := os.read(fd, 65536):
                self._spill.write(decoder.decode(chunk))
                self._spill.flush()
            self._spill.write(decoder.decode(b"", final=True))
        except (OSError, ValueError):  # the file was closed under us: the session ended
            pass
        finally:
            os.close(fd)
            with contextlib.suppress(OSError, ValueError):
                self._spill.close()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the output to end (every writer gone); True when it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def remove(self) -> None:
        """Delete the file (the session no longer needs it); a late write goes nowhere."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


class BackgroundTask(Struct):
    """One background command as ``/tasks`` shows it."""

    proc: subprocess.Popen[bytes]
    command: str
    log: BackgroundLog
    stopped: bool = False

    @property
    def log_path(self) -> str:
        return os.fspath(self.log.path)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def state(self) -> str:
        """running, stopped, or exited N."""
        code = self.proc.poll()
        if code is None and _group_alive(self.proc.pid):
            return "running"
        if self.stopped:
            return "stopped"
        return f"exited {code}" if code is not None else "running (children)"

    def output(self, last: int | None = None) -> str:
        """Its output so far (the last ``last`` lines)."""
        try:
            with open(self.log_path, "rb") as fh:
                text = fh.read()[-256 * 1024 :].decode("utf-8", "replace")
        except OSError as exc:
            return f"(output unavailable: {exc.strerror or exc})"
        lines = text.splitlines()
        return "\n".join(lines if last is None else lines[-last:])


class BackgroundJobs:
    """The process groups of one session's background commands."""

    def __init__(self) -> None:
        self.tasks: dict[int, BackgroundTask] = {}
        """Background commands by PID, for ``/tasks`` (kept after they end)."""
        self._procs: list[subprocess.Popen[bytes]] = []
        self._orphans: dict[int, list[tuple[int, str]]] = {}
        """Groups whose leader has gone (a foreground command's), with the members seen."""

    def add(self, proc: subprocess.Popen[bytes]) -> None:
        """Own ``proc``'s process group (it must lead a new session: pgid == pid)."""
        self._procs = [p for p in self._procs if p.poll() is None]
        self._procs.append(proc)
        _holding.add(self)

    def describe(self, proc: subprocess.Popen[bytes], command: str, log: BackgroundLog) -> None:
        """Remember what ``proc`` runs and where its output goes (``/tasks``); the log
        file is removed when the session ends (``terminate``)."""
        self.tasks[proc.pid] = BackgroundTask(proc, command, log)
        _holding.add(self)

    def stop(self, pid: int, grace: float = TERM_GRACE_SECONDS) -> bool:
        """End one task's process group (SIGTERM, then SIGKILL); False if unknown."""
        task = self.tasks.get(pid)
        if task is None:
            return False
        task.stopped = True
        _signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            task.proc.poll()
            if not _group_alive(pid):
                break
            time.sleep(0.01)
        else:
            _signal_group(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            task.proc.wait(timeout=grace)
        return True

    def adopt(self, pgid: int) -> None:
        """Own what is still running in group ``pgid`` after its leader exited.

        Its leader was reaped, so the number may be given to another group once this one
        empties; the group is signalled later only while a process seen now still lives
        (a group with a member cannot lose its number).
        """
        if not _group_alive(pgid):  # the usual case, without reading /proc
            return
        seen = [i for i in map(_identity, group_members(pgid)) if i is not None]
        if seen:
            self._orphans[pgid] = seen
            _holding.add(self)

    def _orphan_groups(self) -> list[int]:
        return [
            pgid
            for pgid, seen in self._orphans.items()
            if any(_identity(pid) == (pid, start) for pid, start in seen)
        ]

    def terminate(self, grace: float = TERM_GRACE_SECONDS) -> None:
        """End every group, children included: SIGTERM, a short grace, then SIGKILL.

        Synchronous and bounded by ``grace`` so it can run from ``atexit`` and from a
        shutdown that must finish within a second of Ctrl-C.
        """
        try:
            self._end_groups(grace)
        finally:
            for task in self.tasks.values():  # what a survivor still writes goes nowhere
                task.log.remove()

    def _end_groups(self, grace: float) -> None:
        procs, self._procs = self._procs, []
        orphans = self._orphan_groups()
        self._orphans = {}
        _holding.discard(self)
        if not procs and not orphans:
            return
        groups = [p.pid for p in procs] + orphans
        for pgid in groups:
            _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        pending = list(groups)
        while pending and time.monotonic() < deadline:
            for proc in procs:
                proc.poll()  # reap the leader so its group can empty
            pending = [g for g in pending if _group_alive(g)]
            if pending:
                time.sleep(0.01)
        for pgid in pending:
            _signal_group(pgid, signal.SIGKILL)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=grace)


def terminate_all() -> None:
    """Every session's background groups (the atexit safety net)."""
    for jobs in list(_holding):
        jobs.terminate()


atexit.register(terminate_all)
