"""A table of one-line rows drawn through Textual's Line API.

``DataTable`` renders every visible cell through Rich's padding and ``render_lines``; with
50 agents that was ~70 % of the agent view's opening, and its 1 s clock cleared and
rebuilt every row. Here a row is one ``Content`` (its cells padded to the column widths),
rendered into a ``Strip`` once and cached until its text, styles or the width change, so
the clock redraws only the rows whose elapsed time moved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual

__all__ = ["RowTable"]

_GAP = 2
"""Blank cells between two columns (one each side, as ``DataTable`` pads)."""


class RowTable(ScrollView, can_focus=True):
    """A header line and keyed rows of cells; a row cursor moved by keys or a click."""

    DEFAULT_CSS = """
    RowTable {
        background: $surface;
        color: $foreground;
        & > .row-table--header { text-style: bold; background: $panel; color: $foreground; }
        & > .row-table--even { background: $surface-lighten-1 50%; }
        &:dark > .row-table--even { background: $surface-darken-1 40%; }
        & > .row-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .row-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    ALLOW_SELECT = False
    """Rows are chosen, not selected as text (a cached row would keep a stale highlight)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "row-table--header",
        "row-table--even",
        "row-table--cursor",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "cursor_to(0)", "First", show=False),
        Binding("end", "cursor_to(-1)", "Last", show=False),
    ]

    cursor_row: reactive[int] = reactive(0, layout=False, always_update=True)
    """The row under the cursor (0 when there are none)."""

    def __init__(
        self,
        columns: dict[str, int | None],
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = columns
        """Each column's label and width (None: as wide as its widest cell or label)."""
        self._keys: list[str] = []
        self._cells: list[list[Content]] = []
        self._lines: list[Content] = []
        self._header = Content("")
        self._strips: dict[tuple[int, str], tuple[object, Strip]] = {}

    # -- rows ------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[tuple[str, list[Content]]]) -> None:
        """Show ``rows`` (a key and its cells each); the cursor stays on the same key."""
        chosen = self.cursor_key
        self._keys = [key for key, _ in rows]
        self._cells = [cells for _, cells in rows]
        widths = [
            width
            if width is not None
            else max([len(label)] + [cells[i].cell_length for cells in self._cells])
            for i, (label, width) in enumerate(self.columns.items())
        ]
        self._header = self._line([Content(label) for label in self.columns], widths)
        self._lines = [self._line(cells, widths) for cells in self._cells]
        self.virtual_size = Size(sum(widths) + _GAP * len(widths), len(self._lines) + 1)
        index = self._keys.index(chosen) if chosen in self._keys else self.cursor_row
        self.cursor_row = max(0, min(index, len(self._keys) - 1))
        self.refresh()

    @staticmethod
    def _line(cells: list[Content], widths: list[int]) -> Content:
        pieces = [
            cell.truncate(width, pad=True).pad(1, 1)
            for cell, width in zip(cells, widths, strict=True)
        ]
        return Content("").join(pieces)

    @property
    def row_count(self) -> int:
        return len(self._keys)

    @property
    def cursor_key(self) -> str | None:
        """The key of the row under the cursor."""
        return self._keys[self.cursor_row] if 0 <= self.cursor_row < len(self._keys) else None

    def cells(self, row: int) -> list[Content]:
        """The cells of one row, as given."""
        return list(self._cells[row])

    def row_index(self, key: str) -> int:
        return self._keys.index(key)

    def move_cursor(self, row: int) -> None:
        self.cursor_row = max(0, min(row, len(self._keys) - 1))

    # -- keys and the mouse -------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        self.move_cursor(self.cursor_row + step)

    def action_page(self, direction: int) -> None:
        self.move_cursor(
            self.cursor_row + direction * max(1, self.scrollable_content_region.height - 2)
        )

    def action_cursor_to(self, row: int) -> None:
        self.move_cursor(row if row >= 0 else len(self._keys) - 1)

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:  # the header
            return
        row = int(self.scroll_offset.y) + offset.y - 1
        if row < len(self._keys):  # below the last row: nothing chosen
            self.move_cursor(row)

    def watch_cursor_row(self, old: int, new: int) -> None:
        # keep the cursor's row between the header and the bottom edge
        shown = max(1, self.scrollable_content_region.height - 1)
        top = int(self.scroll_offset.y)
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + shown:
            self.scroll_to(y=new - shown + 1, animate=False, immediate=True)
        self.refresh()

    # -- drawing -----------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        x = int(self.scroll_offset.x)
        if y == 0:
            strip = self._strip(-1, self._header, ("row-table--header",), width + x)
            return strip.crop(x, x + width)
        row = int(self.scroll_offset.y) + y - 1
        if row >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        look: tuple[str, ...] = ()
        if row == self.cursor_row:
            look = ("row-table--cursor",)
        elif row % 2 == 0:
            look = ("row-table--even",)
        return self._strip(row, self._lines[row], look, width + x).crop(x, x + width)

    def _strip(self, row: int, line: Content, look: tuple[str, ...], width: int) -> Strip:
        """One line's strip, rendered again only when what it shows changed."""
        style = self.get_visual_style(*look) if look else self.get_visual_style()
        stamp = (line.plain, tuple(line.spans), style, width)
        key = (row, look[0] if look else "")
        cached = self._strips.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        width = max(width, line.cell_length)
        strip = Visual.to_strips(self, line, width, 1, style)[0]
        strip = strip.adjust_cell_length(width, style.rich_style)
        if "row-table--cursor" in look:  # the cursor's colours win over a cell's, as in DataTable
            strip = Strip(Segment.apply_style(strip, post_style=style.rich_style), width)
        self._strips[key] = (stamp, strip)
        return strip

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()
