"""Which transcript blocks keep their rendered lines: the most recently drawn, up to a budget.

Why: a long session holds thousands of blocks; keeping every block's styled lines would
grow memory with the session. Blocks keep their height (layout and scrolling need it) and
drop their lines when they have not been drawn for a while; drawing one again renders it
again from its text (as Textual's ``Log`` bounds its line cache).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.tui.widgets.transcript_blocks import Block

__all__ = ["MAX_CACHED_LINES", "RenderedLines"]

MAX_CACHED_LINES = 6_000
"""Rendered lines kept at most (many screens of scrollback; a 1,000-turn session has ~14,000)."""


class RenderedLines:
    """Least recently drawn first; ``touch`` after a render, which may release others."""

    def __init__(self, limit: int = MAX_CACHED_LINES) -> None:
        self.limit = limit
        self._order: OrderedDict[Block, int] = OrderedDict()
        self._lines = 0
        self.released = 0
        """Blocks released so far (tests and benchmarks read it)."""

    def touch(self, block: Block, keep: Callable[[Block], bool]) -> None:
        """``block`` was just drawn; release the oldest others past the budget unless
        ``keep`` says they are needed now (on screen, or still streaming)."""
        self._lines -= self._order.pop(block, 0)
        self._order[block] = block.height
        self._lines += block.height
        if self._lines <= self.limit:
            return
        for old in list(self._order):
            if self._lines <= self.limit:
                break
            if old is block or keep(old):
                continue
            self._lines -= self._order.pop(old)
            old.release()
            self.released += 1

    def clear(self) -> None:
        self._order.clear()
        self._lines = 0
