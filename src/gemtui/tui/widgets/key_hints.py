"""A one-line row of key hints that always fits: it drops alternate keys and spacing
before it would wrap, so the keys of an approval read on one line at 80 columns."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

__all__ = ["KeyHint", "KeyHints"]

KeyHint = tuple[str, str, str, str]
"""(keys in full, e.g. ``a/1``; the short key, ``a``; what it does; in fewer words)."""


class KeyHints(Widget):
    """Key hints on one line: the fullest form that fits the width."""

    DEFAULT_CSS = """
    KeyHints {
        height: 1;
        width: 1fr;
        color: $text-muted;
    }
    """

    def __init__(
        self,
        hints: list[KeyHint] | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.hints: list[KeyHint] = hints or []

    def show(self, hints: list[KeyHint]) -> None:
        self.hints = hints
        self.refresh()

    def line(self, width: int) -> Content:
        """The hints for ``width`` cells: full keys, then short keys, then tighter gaps
        and fewer words."""
        best: Content | None = None
        for short, gap, terse in ((False, "  ", False), (True, "  ", False), (True, " ", True)):
            pieces: list[Content | str | tuple[str, str]] = []
            for full, key, label, few in self.hints:
                if pieces:
                    pieces.append(gap)
                words = few if terse else label
                pieces += [(key if short else full, "bold $text-accent"), f" {words}" * bool(words)]
            best = Content.assemble(*pieces)
            if best.cell_length <= width:
                return best
        return best if best is not None else Content("")

    def render(self) -> Content:
        return self.line(self.size.width)
