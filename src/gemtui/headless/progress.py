"""A spinner on stderr while nothing has been printed yet (only on a terminal)."""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

__all__ = ["Spinner"]

_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class Spinner:
    """Shows after ``delay`` seconds of silence; stops at the first output."""

    def __init__(
        self, label: str = "waiting for the model", stream: TextIO | None = None, delay: float = 0.5
    ) -> None:
        self.stream = stream or sys.stderr
        self.label = label
        self.delay = delay
        self._task: asyncio.Task[None] | None = None
        self._shown = False

    @property
    def enabled(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def start(self) -> None:
        if self.enabled and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        await asyncio.sleep(self.delay)
        i = 0
        while True:
            self._shown = True
            self.stream.write(f"\r{_FRAMES[i % len(_FRAMES)]} {self.label}…")
            self.stream.flush()
            i += 1
            await asyncio.sleep(0.08)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._shown = False
