"""Incremental Markdown rendering for an answer that grows a few tokens at a time.

Re-rendering a whole answer with Rich's Markdown on every chunk costs ~120 ms at 3 KB
and grows with the text, so a long answer would stall the UI. Instead the text is split
into top-level Markdown blocks (paragraphs, headings, lists, fenced code, ...); each
block is rendered once into :class:`~textual.strip.Strip` lines and cached by its source,
so only the last block, the one still growing, is rendered again on an update.

The blocks are markdown-it's own (``tui.view.markdown_blocks``); only the block parser
runs, from the live tail's last unsettled block, never on the frozen text.

An answer that floods in must not stall the UI either, so the work per render is bounded:
once more than ``LIVE_CHARS`` (or ``LIVE_LINES``) of text wait behind the finished part,
their leading blocks are rendered once and frozen (a block bigger than that is cut at a
line, a fenced one closed and reopened), for at most ``FREEZE_SECONDS_PER_RENDER`` per
call. What is left for later renders shows up as :attr:`AnswerRender.behind`.
"""

from __future__ import annotations

import time
from collections import deque

from msgspec import Struct
from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

from gemtui.tui.view.markdown_blocks import code_blocks, settled, split_blocks, top_blocks

__all__ = [
    "FREEZE_SECONDS_PER_RENDER",
    "LIVE_CHARS",
    "LIVE_LINES",
    "AnswerRender",
    "code_blocks",
    "render_markdown",
    "split_blocks",
]

LIVE_CHARS = 8_000
LIVE_LINES = 40
"""Text re-rendered as a whole on each update at most (more is frozen block by block,
and a block bigger than this is cut when it is frozen)."""
FREEZE_SECONDS_PER_RENDER = 0.015
"""Time one render spends on new blocks at most (freezing, then the live tail), so it
never holds the UI for long; what is left is drawn on the next frames."""


def _is_blank(strip: Strip) -> bool:
    return all(
        not segment.text.strip() and (segment.style is None or segment.style.bgcolor is None)
        for segment in strip
    )


def render_markdown(console: Console, source: str, width: int, code_theme: str) -> list[Strip]:
    """Render Markdown into lines of exactly ``width`` cells, without outer blank lines."""
    # loaded with the first answer, not at start-up
    from gemtui.tui.view.terminal_safe import printable
    from gemtui.tui.widgets.markdown_look import left_aligned_markdown

    source = printable(source)  # a replayed answer skips the view model's cleaning
    options = console.options.update(width=width, height=None, highlight=False)
    lines = console.render_lines(
        left_aligned_markdown(source, code_theme), options, pad=True, new_lines=False
    )
    strips = [Strip(line, width) for line in lines]
    while strips and _is_blank(strips[-1]):
        strips.pop()
    while strips and _is_blank(strips[0]):
        strips.pop(0)
    return strips


def _first_piece(tail: str) -> tuple[str, int, str, list[tuple[str, int]]]:
    """The first part of ``tail`` that can be rendered once and for all.

    Returns its Markdown source, the characters of ``tail`` it uses, and the opening line
    of a fenced block it cut (to reopen before the rest), else ""; then the blocks after
    it that are final too, each with the characters of ``tail`` used up to its end (the
    window is parsed once for all of them).
    """
    window = tail[: 2 * LIVE_CHARS]
    end = -1
    for _ in range(2 * LIVE_LINES):  # a bounded window: splitting it stays cheap
        end = window.find("\n", end + 1)
        if end < 0:
            break
    if end >= 0:
        window = window[: end + 1]
    blocks = top_blocks(window)
    if not blocks:
        return "", len(window), "", []
    first, start = blocks[0].source, blocks[0].offset
    if not _big(first):
        later: list[tuple[str, int]] = []
        for block in blocks[1 : settled(blocks, window)]:
            if _big(block.source):
                break
            later.append((block.source, block.offset + len(block.source)))
        return first, start + len(first), "", later
    seg = first[:LIVE_CHARS]
    cut, pos = -1, 0
    for _ in range(LIVE_LINES):
        pos = seg.find("\n", pos) + 1
        if pos <= 0:
            break
        cut = pos - 1
    if cut > 0:
        head, used = first[:cut], start + cut + 1
    else:  # one huge line: cut at a space, or anywhere
        space = seg.rfind(" ")
        cut = space if space > 0 else len(seg)
        head, used = first[:cut], start + cut + (1 if space > 0 else 0)
    fence = blocks[0].fence
    if not fence or "\n" not in head:
        return head, used, "", []
    return head + "\n" + fence, used, first.split("\n", 1)[0], []


def _big(source: str) -> bool:
    """Too big to render as one piece: cut when frozen."""
    return len(source) > LIVE_CHARS or source.count("\n") >= LIVE_LINES


class _RenderedBlock(Struct):
    source: str
    strips: list[Strip]


class AnswerRender:
    """The growing text of one answer and its rendering, cached block by block.

    :meth:`append` only records text; :meth:`render` brings the lines up to date, so a
    caller can coalesce any number of chunks into one render per frame.
    """

    def __init__(self, code_theme: str = "monokai") -> None:
        self._chunks: list[str] = []
        self._text = ""
        self._finished = False
        self._dirty = True
        self._code_theme = code_theme
        self._width = -1
        self._indent = 0
        self._blocks: list[_RenderedBlock] = []
        self._lines: list[Strip] = []
        self._frozen: list[Strip] = []
        """Lines of the text before ``_frozen_upto``, rendered once for good."""
        self._frozen_upto = 0
        self._reopen = ""
        """The opening line of a fenced block that a frozen piece cut in two."""
        self._stable: tuple[tuple[int, str], str, list[str]] = ((0, ""), "", [])
        """The live tail's settled blocks: (frozen offset and reopened fence it was
        parsed with, the tail's text they cover, their sources)."""
        self._behind = False
        self.render_count = 0
        """How many Markdown blocks were rendered so far (tests and benchmarks read it)."""

    @property
    def text(self) -> str:
        """All the text appended so far."""
        if self._chunks:
            self._text += "".join(self._chunks)
            self._chunks.clear()
        return self._text

    @property
    def dirty(self) -> bool:
        """True when text arrived (or settings changed) since the last render."""
        return self._dirty

    @property
    def behind(self) -> bool:
        """True when the last render left text for later ones (see :meth:`resume`)."""
        return self._behind

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def code_theme(self) -> str:
        return self._code_theme

    @code_theme.setter
    def code_theme(self, theme: str) -> None:
        if theme != self._code_theme:
            self._code_theme = theme
            self.invalidate()

    def append(self, text: str) -> None:
        """Add text; nothing is rendered until :meth:`render`."""
        if text:
            self._chunks.append(text)
            self._dirty = True

    def finish(self) -> None:
        """The answer is complete: its last block no longer grows."""
        self._finished = True
        self._dirty = True

    def resume(self) -> None:
        """Let the next render go on with the text left behind."""
        if self._behind:
            self._dirty = True

    def release(self) -> None:
        """Forget every rendered line of a finished answer (memory); the next render
        builds them again from the text."""
        if self._finished:
            self._blocks, self._frozen, self._lines = [], [], []
            self._frozen_upto, self._reopen, self._width = 0, "", -1
            self._dirty = True

    def invalidate(self) -> None:
        """Forget every rendered block (theme change)."""
        self._blocks.clear()
        self._width = -1
        self._dirty = True

    def render(self, console: Console, width: int, indent: int = 0) -> list[Strip]:
        """The answer as lines ``width`` cells wide (after ``indent`` blank cells, added
        once per rendered block); renders only blocks that changed."""
        width = max(1, width)
        if not self._dirty and (width, indent) == (self._width, self._indent):
            return self._lines
        if (width, indent) != (self._width, self._indent):
            self._blocks.clear()
            self._frozen, self._frozen_upto, self._reopen = [], 0, ""
            self._width, self._indent = width, indent
        text = self.text
        self._behind = self._freeze(console, text)
        lines = list(self._frozen)
        if not self._behind:
            reopen = self._reopen + "\n" if self._reopen else ""
            tail = reopen + text[self._frozen_upto :]
            previous = self._blocks
            # by source, not place: a block frozen since moves every live block up one
            drawn = {block.source: block for block in previous}
            blocks: list[_RenderedBlock] = []
            sources = self._split_live(tail)
            deadline = time.perf_counter() + FREEZE_SECONDS_PER_RENDER
            fresh = 0
            for source in sources:
                known = drawn.get(source)
                if known is not None:
                    blocks.append(known)
                    continue
                if fresh and time.perf_counter() > deadline:
                    # out of time: show the blocks done, draw the rest on the next frames
                    self._behind = True
                    break
                block = _RenderedBlock(source, self._render_block(console, source))
                blocks.append(block)
                drawn[source] = block  # the same block twice in one answer: drawn once
                fresh += 1
            later = set(sources[len(blocks) :])  # left for the next frames: keep their drawings
            self._blocks = blocks + [block for block in previous if block.source in later]
            blank = Strip.blank(width + indent)
            for block in blocks:
                if lines:
                    lines.append(blank)
                lines.extend(block.strips)
        self._lines = lines
        self._dirty = False
        return lines

    def _split_live(self, tail: str) -> list[str]:
        """``split_blocks(tail)``, parsing only from the last block that may still change
        (Textual's ``Markdown.append`` does the same): the blocks already final
        (``_settled``) are taken from the previous call."""
        key, prefix, stable = self._stable
        base = 0
        if key == (self._frozen_upto, self._reopen) and tail.startswith(prefix):
            base = len(prefix)
        else:
            stable = []
        fresh = top_blocks(tail[base:])
        sources = stable + [block.source for block in fresh]
        final = settled(fresh, tail, base)
        if final > 0:
            end = base + fresh[final].offset
            stable = stable + [block.source for block in fresh[:final]]
            self._stable = ((self._frozen_upto, self._reopen), tail[:end], stable)
        return sources

    def _freeze(self, console: Console, text: str) -> bool:
        """Freeze leading blocks while too much text is live; True if out of time."""
        start = self._frozen_upto
        deadline = time.perf_counter() + FREEZE_SECONDS_PER_RENDER
        ahead: deque[tuple[str, int]] = deque()  # final blocks parsed with the last piece
        while _too_live(text, self._frozen_upto):
            if time.perf_counter() > deadline and self._frozen_upto > start:
                return True  # one piece per render at least: a busy machine still progresses
            if ahead:
                source, ends = ahead.popleft()
                used = ends - self._frozen_upto
            else:
                reopen = self._reopen + "\n" if self._reopen else ""
                tail = reopen + text[self._frozen_upto : self._frozen_upto + 2 * LIVE_CHARS]
                source, used, self._reopen, later = _first_piece(tail)
                base = self._frozen_upto - len(reopen)
                ahead.extend((piece, base + ends) for piece, ends in later)
                used = max(1, used - len(reopen))
            if source:
                cached = next((b.strips for b in self._blocks if b.source == source), None)
                if cached is None:
                    cached = self._render_block(console, source)
                if self._frozen:
                    self._frozen.append(Strip.blank(self._width + self._indent))
                self._frozen.extend(cached)
            self._frozen_upto += used
        return False

    def _render_block(self, console: Console, source: str) -> list[Strip]:
        strips = render_markdown(console, source, self._width, self._code_theme)
        self.render_count += 1
        if not self._indent:
            return strips
        pad = Segment(" " * self._indent)
        return [Strip([pad, *strip], strip.cell_length + self._indent) for strip in strips]


def _too_live(text: str, start: int) -> bool:
    live = text[start : start + LIVE_CHARS + 1]
    return len(live) > LIVE_CHARS or live.count("\n") > LIVE_LINES
