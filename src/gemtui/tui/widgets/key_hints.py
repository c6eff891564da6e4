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
        self.optional: tuple[str, ...] = ()
        """Full keys of hints that go (last first) before the line would be cut."""

    def show(self, hints: list[KeyHint], optional: tuple[str, ...] = ()) -> None:
        self.hints, self.optional = hints, optional
        self.refresh()

    def line(self, width: int) -> Content:
        """The hints for ``width`` cells: full keys, then short keys, then tighter gaps
        and fewer words, then without the optional hints (last listed first)."""
        shown = list(self.hints)
        variants = [(False, "  ", False), (True, "  ", False)]
        variants += [(True, " ", True)] * (1 + sum(1 for h in shown if h[0] in self.optional))
        best = Content("")
        for short, gap, terse in variants:
            pieces: list[Content | str | tuple[str, str]] = []
            for full, key, label, few in shown:
                if pieces:
                    pieces.append(gap)
                words = few if terse else label
                pieces += [(key if short else full, "bold $text-accent"), f" {words}" * bool(words)]
            best = Content.assemble(*pieces)
            if best.cell_length <= width:
                return best
            if terse:
                drop = next((h for h in reversed(shown) if h[0] in self.optional), None)
                if drop is not None:
                    shown.remove(drop)
        return best

    def render(self) -> Content:
        return self.line(self.size.width)
