"""Where shell commands run when a front end offers its own terminals (an editor).

An ACP client with the ``terminal`` capability runs the command in a terminal the person
can watch inside the tool call. The shell tool still checks the folder against the
workspace first, and the policy engine has approved the command before it gets here; a
sandboxed session (``-s``) never hands its commands out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["TerminalAccess", "TerminalRun"]


@dataclass(frozen=True)
class TerminalRun:
    """How a command ended in a front end's terminal."""

    output: str
    exit_code: int | None
    signal: str | None = None
    timed_out: bool = False
    truncated: bool = False


class TerminalAccess(Protocol):
    """Runs one command to its end in a terminal the front end shows."""

    async def run(
        self, command: str, cwd: Path, *, seconds: float, output_limit: int, call_id: str | None
    ) -> TerminalRun:
        """Run ``bash -c command`` in ``cwd``; kill it after ``seconds`` or when the
        awaiting task is cancelled. ``call_id`` names the tool call that shows it."""
        ...
