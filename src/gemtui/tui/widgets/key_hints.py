"""A row of key hints that always fits: it drops alternate keys and spacing before it
would wrap, so the keys of an approval read on one line at 80 columns. With ``wrap`` it
goes on to a second line instead of cutting a hint (a screen footer with many keys)."""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from gemtui.tui.view.approval_keys import KeyHint

__all__ = ["KeyHint", "KeyHints"]


class KeyHints(Widget):
    """Key hints on one line: the fullest form that fits the width."""

    DEFAULT_CSS = """
    KeyHints {
        height: 1;
        width: 1fr;
        color: $text-muted;
    }
    KeyHints.-wrap { height: auto; }
    """

    def __init__(
        self,
        hints: list[KeyHint] | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        wrap: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.set_class(wrap, "-wrap")
        self.wrap = wrap
        """Too long for one line even in few words: wrap between hints, never inside one
        (leave ``optional`` empty then: every key is meant to stay visible)."""
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

    def lines(self, width: int) -> list[Content]:
        """What is drawn at ``width``: one line if every hint fits on it; else, with
        ``wrap``, short keys over as many lines as it takes, each hint whole."""
        one = self.line(width)
        if not self.wrap or one.cell_length <= width:
            return [one]
        rows: list[list[Content]] = [[]]
        used = 0
        for _full, key, label, _few in self.hints:
            piece = Content.assemble((key, "bold $text-accent"), f" {label}" * bool(label))
            if rows[-1] and used + 2 + piece.cell_length > width:
                rows.append([])
                used = 0
            used += piece.cell_length + (2 if rows[-1] else 0)
            rows[-1].append(piece)
        return [Content("  ").join(row) for row in rows]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        return Content("\n").join(self.lines(self.size.width))
