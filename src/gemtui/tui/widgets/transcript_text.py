"""The transcript as text: what F6/F7 copy, what Ctrl+F finds, what the mouse selects.

Why apart from ``transcript.py``: drawing blocks and paging is one job; reading the drawn
lines back as text (to find a word, to copy a selection) is another. Lines are counted
as the transcript draws them (after wrapping), so a match or a selection is a place on
the screen: a line and the columns in it. A match within one drawn line is found; one
broken across a wrapped line is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct
from rich.cells import cell_len
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.scroll_view import ScrollView
from textual.strip import Strip

from gemtui.tui.widgets.answer_render import code_blocks
from gemtui.tui.widgets.transcript_blocks import AnswerBlock, BlockList

if TYPE_CHECKING:
    from rich.console import Console
    from rich.style import Style
    from textual.selection import Selection

    from gemtui.tui.widgets.transcript_blocks import RenderContext

__all__ = ["Match", "TranscriptText", "centred_marker"]


class Match(Struct, frozen=True):
    """One place the searched text was found: a drawn line and its columns."""

    line: int
    start: int
    end: int


class TranscriptText(ScrollView):
    """The transcript's text side: copying, finding and mouse selection (a base of
    ``Transcript``, which draws the blocks)."""

    ALLOW_SELECT = True
    _blocks: BlockList
    _width: int

    def _render_context(self) -> RenderContext:
        raise NotImplementedError  # the transcript's

    def _relayout(self, index: int) -> None:
        raise NotImplementedError  # the transcript's

    def _component_style(self, name: str) -> Style:
        raise NotImplementedError  # the transcript's

    repainted_lines = 0
    """Lines marked for painting again so far (tests read it: a streamed chunk that keeps
    the answer's height repaints that answer's lines on screen, not the whole view)."""

    def _repaint_block(self, index: int) -> None:
        """Paint again only block ``index``'s lines on screen (it was redrawn at the same
        height): no layout of the screen, which a new virtual size would ask for."""
        if self._blocks.line_count != self.virtual_size.height:  # not laid out: do it now
            self._relayout(index)
            return
        top = self._blocks.start(index) - self.scroll_offset.y
        region = Region(0, top, self.size.width, self._blocks.blocks[index].height)
        region = region.intersection(self.size.region)
        if region:
            self.repainted_lines += region.height
            self.refresh(region)

    # -- copying -----------------------------------------------------------------------
    def messages(self) -> list[tuple[str, str]]:
        """(role, text) of every user message and answer, for copying."""
        return [(b.role, b.text) for b in self._blocks.blocks if b.role is not None]

    def last_code_block(self) -> str | None:
        """The last fenced code block of the most recent answer that has one."""
        for block in reversed(self._blocks.blocks):
            if isinstance(block, AnswerBlock) and (found := code_blocks(block.text)):
                return found[-1]
        return None

    def text_lines(self) -> list[str]:
        """Every drawn line as plain text (blocks not on screen are drawn to read them,
        then let go again: the rendered-lines budget stays as it was)."""
        if self._width <= 0:
            return []
        ctx = self._render_context()
        out: list[str] = []
        moved: int | None = None
        for index, block in enumerate(self._blocks.blocks):
            held, height = not block.stale(self._width), block.height
            out.extend(strip.text for strip in block.lines(ctx))
            if block.height != height and moved is None:
                moved = index
            if not held:
                block.release()
        if moved is not None:  # an estimated height was wrong: the layout follows the truth
            self._relayout(moved)
        return out

    # -- finding -----------------------------------------------------------------------
    _matches: tuple[Match, ...] = ()
    _current: int = -1

    @property
    def matches(self) -> tuple[Match, ...]:
        """Where the last search found its text, top to bottom."""
        return self._matches

    @property
    def current_match(self) -> int:
        """The index of the match in front (-1: none)."""
        return self._current

    def find(self, query: str) -> int:
        """Find ``query`` (ignoring case) and bring the first match at or below the top
        of the view into view; the number of matches."""
        self._matches, self._current = (), -1
        wanted = query.casefold()
        if wanted:
            found = []
            for y, text in enumerate(self.text_lines()):
                folded, start = text.casefold(), 0
                while (at := folded.find(wanted, start)) >= 0:
                    found.append(Match(y, at, at + len(wanted)))
                    start = at + len(wanted)
            self._matches = tuple(found)
        if self._matches:
            top = round(self.scroll_y)
            below = [i for i, m in enumerate(self._matches) if m.line >= top]
            self._show(below[0] if below else 0)
        self.refresh()
        return len(self._matches)

    def find_step(self, step: int) -> int:
        """Move to the next (1) or previous (-1) match, round the ends; its index."""
        if self._matches:
            self._show((self._current + step) % len(self._matches))
        return self._current

    def clear_find(self) -> None:
        """Forget the search: no match is highlighted any more."""
        self._matches, self._current = (), -1
        self.refresh()

    def _show(self, index: int) -> None:
        self._current = index
        line = self._matches[index].line
        height = self.scrollable_content_region.height
        if not self.scroll_y <= line < self.scroll_y + height:
            self.scroll_to(y=max(0, line - height // 2), animate=False, immediate=True)
        self.refresh()

    # -- drawing -----------------------------------------------------------------------
    _pointer_in: bool = False
    """The mouse is over the conversation: lines carry the offsets a selection reads.
    Only then: the offsets split each line into a segment per style run, a cost (and a
    change to every drawn frame) no one needs while the pointer is elsewhere."""

    def on_enter(self, event: events.Enter) -> None:
        if not self._pointer_in:
            self._pointer_in = True
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._pointer_in and self.text_selection is None:
            self._pointer_in = False
            self.refresh()

    def decorate_line(self, strip: Strip, line: int) -> Strip:
        """A drawn line with its matches highlighted, the mouse selection shown, and (the
        pointer over it) the offsets Textual's selection reads."""
        spans: list[tuple[int, int, Style]] = []
        if self._matches:
            current = self._matches[self._current] if self._current >= 0 else None
            for match in self._matches:
                if match.line == line:
                    name = "find-current" if match is current else "find"
                    spans.append((match.start, match.end, self._component_style(name)))
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(line)) is not None:
            start, end = span
            style = self.screen.get_component_rich_style("screen--selection")
            spans.append((start, len(strip.text) if end == -1 else end, style))
        text = strip.text if spans else ""
        for start, end, style in spans:
            a, b = cell_len(text[:start]), cell_len(text[:end])
            if b > a:
                left, middle, right = strip.divide([a, b, strip.cell_length])
                lit = Strip(Segment.apply_style(iter(middle), post_style=style), b - a)
                strip = Strip.join([left, lit, right])  # over the text's own colours
        return strip.apply_offsets(0, line) if self._pointer_in else strip

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, as the transcript draws it."""
        lines = self.text_lines()
        if not lines:
            return None
        return selection.extract("\n".join(line.rstrip() for line in lines)), "\n"


def centred_marker(label: str, console: Console, width: int, style: Style, base: Style) -> Strip:
    """``label`` centred on a line ``width`` cells wide (the "new output below" marker)."""
    text = Text(label, style=style)
    text.truncate(width)
    pad = max(0, width - text.cell_len)
    line = Text(" " * (pad // 2)) + text + Text(" " * (pad - pad // 2))
    return Strip(list(line.render(console, end="")), width).apply_style(base)
