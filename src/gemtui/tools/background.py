"""Background commands belong to the session that started them.

``run_shell_command`` with ``is_background`` starts a command in its own process group
and returns at once. The group is registered here, on the session's ``ToolContext``, and
``BackgroundJobs.terminate`` ends every group (SIGTERM, then SIGKILL for what is left)
when the session closes: headless runs close it on their way out, the TUI when the app
exits, and an ``atexit`` hook catches any path that forgot.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import time

__all__ = ["BackgroundJobs", "terminate_all"]

TERM_GRACE_SECONDS = 0.5
"""How long the groups get to exit after SIGTERM before SIGKILL."""

_holding: set[BackgroundJobs] = set()
"""Registries with running groups, held strongly so a dropped session's jobs still end."""


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


class BackgroundJobs:
    """The process groups of one session's background commands."""

    def __init__(self) -> None:
        self._procs: list[subprocess.Popen[bytes]] = []

    def add(self, proc: subprocess.Popen[bytes]) -> None:
        """Own ``proc``'s process group (it must lead a new session: pgid == pid)."""
        self._procs = [p for p in self._procs if p.poll() is None]
        self._procs.append(proc)
        _holding.add(self)

    @property
    def pgids(self) -> list[int]:
        return [p.pid for p in self._procs]

    def terminate(self, grace: float = TERM_GRACE_SECONDS) -> None:
        """End every group, children included: SIGTERM, a short grace, then SIGKILL.

        Synchronous and bounded by ``grace`` so it can run from ``atexit`` and from a
        shutdown that must finish within a second of Ctrl-C.
        """
        procs, self._procs = self._procs, []
        _holding.discard(self)
        if not procs:
            return
        for proc in procs:
            _signal_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        pending = list(procs)
        while pending and time.monotonic() < deadline:
            for proc in pending:
                proc.poll()  # reap the leader so its group can empty
            pending = [p for p in pending if _group_alive(p.pid)]
            if pending:
                time.sleep(0.01)
        for proc in pending:
            _signal_group(proc.pid, signal.SIGKILL)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=grace)


def terminate_all() -> None:
    """Every session's background groups (the atexit safety net)."""
    for jobs in list(_holding):
        jobs.terminate()


atexit.register(terminate_all)
