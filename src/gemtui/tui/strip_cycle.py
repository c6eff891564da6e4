"""Textual's ``Strip`` without the reference cycles a drawn line made of itself.

Textual caches what a strip's operations return on the strip; where an operation returns
the strip itself, the cache then refers back to it: strip → cache → strip, a cycle.
Two such operations run for most lines drawn: the compositor's ``divide`` at a widget's
edges (one cut, the strip's own width) and ``crop_extend`` to a width the strip already
has. Refcounting could then never free a drawn line; each waited, with its segments and
its seven small caches (~20 objects), for the cycle collector. With agents streaming
that was most of the collector's work: in the fleet benchmark's typing window ~1.7
million objects, ~430 young and ~40 middle collections (issue 36), each a pause a typed
key could land in.

The mended operations answer exactly what Textual's do; they only leave the strip itself
out of its own caches. Every other answer is Textual's, cached as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.style import Style
from textual.strip import Strip

__all__ = ["mend_strip_cycles"]

_textual_divide = Strip.divide
_textual_crop_extend = Strip.crop_extend


def _divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    width = self.cell_length
    kept = [cut for cut in cuts if cut <= width]  # as Textual filters them
    if kept == [width]:
        return [self]  # uncut: what Textual answers, not cached on the strip
    return _textual_divide(self, kept)


def _crop_extend(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    if start <= 0 and end == self.cell_length:
        return self  # nothing to extend or crop: Textual answers the strip itself
    return _textual_crop_extend(self, start, end, style)


def mend_strip_cycles() -> None:
    """Install the cycle-free operations (idempotent; every app in the process shares them)."""
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]
