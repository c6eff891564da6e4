"""Incremental Markdown rendering for an answer that grows a few tokens at a time.

Re-rendering a whole answer with Rich's Markdown on every chunk costs ~120 ms at 3 KB
and grows with the text, so a long answer would stall the UI. Instead the text is split
into top-level Markdown blocks (paragraphs, headings, lists, fenced code, ...); each
block is rendered once into :class:`~textual.strip.Strip` lines and cached by its source,
so only the last block, the one still growing, is rendered again on an update.

The splitter is deliberately conservative: when in doubt it keeps lines together, because
a block that is too big only costs a little time while a wrong split changes the output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.console import Console
from textual.strip import Strip

__all__ = ["MarkdownStream", "code_blocks", "render_markdown", "split_blocks"]

_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_THEMATIC_BREAK = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")

_PARAGRAPH = "paragraph"
_LIST = "list"
_INDENTED_CODE = "indented_code"
_FENCE = "fence"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _fence_opener(line: str) -> tuple[str, int] | None:
    """The fence character and length if ``line`` opens a fenced code block."""
    match = _FENCE_OPEN.match(line.lstrip(" ") if _indent(line) > 3 else line)
    if match is None:
        return None
    marker, info = match.group(2), match.group(3)
    if marker[0] == "`" and "`" in info:
        return None  # a backtick fence's info string may not contain backticks
    return marker[0], len(marker)


def _closes_fence(line: str, fence: tuple[str, int]) -> bool:
    stripped = line.strip()
    char, length = fence
    return len(stripped) >= length and stripped == char * len(stripped)


def split_blocks(text: str) -> list[str]:
    """Split Markdown source into top-level blocks, in order.

    Blank lines separate blocks, except inside a fenced code block (which stays open
    until its closing fence, or the end of the text), before an indented continuation
    of a list, and inside an indented code block. ATX headings and thematic breaks are
    blocks of their own; a setext underline stays with its paragraph; whatever follows a
    closing fence starts a new block. Blank lines between blocks are dropped.
    """
    blocks: list[str] = []
    current: list[str] = []
    kind: str | None = None
    fence: tuple[str, int] | None = None
    fence_nested = False  # a fence inside a list item: closing it does not end the block
    blanks: list[str] = []

    def close() -> None:
        nonlocal current, kind
        if current:
            blocks.append("\n".join(current))
        current, kind = [], None

    for line in text.split("\n"):
        if fence is not None:
            current.append(line)
            if _closes_fence(line, fence):
                fence = None
                if not fence_nested:
                    close()
            continue
        if not line.strip():
            if current:
                blanks.append(line)
            continue
        indent = _indent(line)
        if blanks:
            continues = (kind == _LIST and (indent >= 2 or bool(_LIST_ITEM.match(line)))) or (
                kind == _INDENTED_CODE and indent >= 4
            )
            if continues:
                current.extend(blanks)
            else:
                close()
            blanks = []
        opener = _fence_opener(line) if kind != _INDENTED_CODE or indent < 4 else None
        if opener is not None and (indent <= 3 or kind == _LIST):
            fence = opener
            fence_nested = kind == _LIST and indent >= 2
            if not fence_nested:
                close()
                kind = _FENCE
            current.append(line)
            continue
        if kind == _LIST and indent >= 2:
            current.append(line)
            continue
        if _ATX_HEADING.match(line):
            close()
            blocks.append(line)
            continue
        if kind == _PARAGRAPH and _SETEXT_UNDERLINE.match(line):
            current.append(line)
            close()
            continue
        if _THEMATIC_BREAK.match(line):
            close()
            blocks.append(line)
            continue
        if not current:
            if _LIST_ITEM.match(line):
                kind = _LIST
            elif indent >= 4:
                kind = _INDENTED_CODE
            else:
                kind = _PARAGRAPH
        current.append(line)
    close()
    return blocks


def code_blocks(text: str) -> list[str]:
    """The contents of every fenced code block in ``text``, in order (open ones too)."""
    found: list[str] = []
    fence: tuple[str, int] | None = None
    indent = 0
    body: list[str] = []
    for line in text.split("\n"):
        if fence is None:
            opener = _fence_opener(line)
            if opener is not None:
                fence, indent, body = opener, _indent(line), []
            continue
        if _closes_fence(line, fence):
            found.append("\n".join(body))
            fence = None
            continue
        strip = min(indent, _indent(line))
        body.append(line[strip:])
    if fence is not None:
        found.append("\n".join(body).rstrip("\n"))
    return found


def _is_blank(strip: Strip) -> bool:
    return all(
        not segment.text.strip() and (segment.style is None or segment.style.bgcolor is None)
        for segment in strip
    )


def render_markdown(console: Console, source: str, width: int, code_theme: str) -> list[Strip]:
    """Render Markdown into lines of exactly ``width`` cells, without outer blank lines."""
    from rich.markdown import Markdown  # loaded with the first answer, not at start-up

    options = console.options.update(width=width, height=None, highlight=False)
    lines = console.render_lines(
        Markdown(source, code_theme=code_theme), options, pad=True, new_lines=False
    )
    strips = [Strip(line, width) for line in lines]
    while strips and _is_blank(strips[-1]):
        strips.pop()
    while strips and _is_blank(strips[0]):
        strips.pop(0)
    return strips


@dataclass(slots=True)
class _RenderedBlock:
    source: str
    strips: list[Strip]


class MarkdownStream:
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
        self._blocks: list[_RenderedBlock] = []
        self._lines: list[Strip] = []
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

    def invalidate(self) -> None:
        """Forget every rendered block (theme change)."""
        self._blocks.clear()
        self._width = -1
        self._dirty = True

    def render(self, console: Console, width: int) -> list[Strip]:
        """The answer as lines ``width`` cells wide; renders only blocks that changed."""
        width = max(1, width)
        if not self._dirty and width == self._width:
            return self._lines
        if width != self._width:
            self._blocks.clear()
            self._width = width
        previous = self._blocks
        blocks: list[_RenderedBlock] = []
        for index, source in enumerate(split_blocks(self.text)):
            if index < len(previous) and previous[index].source == source:
                blocks.append(previous[index])
                continue
            strips = render_markdown(console, source, width, self._code_theme)
            self.render_count += 1
            blocks.append(_RenderedBlock(source, strips))
        self._blocks = blocks
        lines: list[Strip] = []
        blank = Strip.blank(width)
        for index, block in enumerate(blocks):
            if index:
                lines.append(blank)
            lines.extend(block.strips)
        self._lines = lines
        self._dirty = False
        return lines
