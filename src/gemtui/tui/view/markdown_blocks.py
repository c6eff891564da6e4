"""Where a Markdown text's top-level blocks begin and end, as markdown-it reads it.

The answer is drawn block by block (``tui.widgets.answer_render``): each block is
rendered once and cached, and only the block still growing is drawn again. The blocks
are markdown-it's own top-level tokens (their ``map`` gives the lines), read with the
parser Rich renders with, so a split never disagrees with how the whole text would be
drawn. Plain Python (no Textual, no Rich): the rules run in unit tests alone.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["MarkdownBlock", "code_blocks", "settled", "split_blocks", "top_blocks"]


class MarkdownBlock(Struct, frozen=True):
    """One top-level Markdown block: its source and, for a fenced one, its fence."""

    source: str
    fence: str = ""
    """The fence's marker (```` ``` ````, ``~~~~``…) when the block is fenced code."""
    offset: int = 0
    """Where the block starts in the text parsed (a line's start)."""


@cache
def _parser() -> MarkdownIt:
    """CommonMark with tables, as Rich's Markdown reads it; block rules only (the inline
    pass costs time and cannot move a block boundary)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])


def _tokens(text: str) -> list[Token]:
    """markdown-it's block tokens for ``text``, whose ``map`` counts lines as
    ``text.split("\n")`` does (a lone CR, a line end to the parser, is kept a space)."""
    if "\r" in text:
        text = _LONE_CR.sub(" ", text)
    return _parser().parse(text)


_LONE_CR = re.compile(r"\r(?!\n)")


def top_blocks(text: str) -> list[MarkdownBlock]:
    """The top-level blocks of ``text`` as markdown-it sees them, in order.

    Each block runs from its token's first line to the next block's, without the blank
    lines around it; lines no token covers (a link definition) stay with the block
    before, so no text is ever dropped. A fence still open runs to the end of the text.
    """
    lines = text.split("\n")
    tops: list[tuple[int, Token | None]] = [
        (t.map[0], t) for t in _tokens(text) if t.level == 0 and t.nesting >= 0 and t.map
    ]
    if not tops or tops[0][0] > 0:
        tops.insert(0, (0, None))  # text before the first block: kept, never lost
    offsets = [0, *accumulate(len(line) + 1 for line in lines)]
    blocks: list[MarkdownBlock] = []
    for index, (start, token) in enumerate(tops):
        end = tops[index + 1][0] if index + 1 < len(tops) else len(lines)
        fence = token.markup if token is not None and token.type == "fence" else ""
        last = end
        if not (token is not None and fence and _fence_open(token)):
            while last > start and not lines[last - 1].strip():
                last -= 1
        first = start
        while first < last and not lines[first].strip():
            first += 1
        if first < last:
            blocks.append(MarkdownBlock("\n".join(lines[first:last]), fence, offsets[first]))
    return blocks


def _fence_open(token: Token) -> bool:
    """The fence has no closing line yet (its lines: opening, contents, closing)."""
    assert token.map is not None
    return token.map[1] - token.map[0] < token.content.count("\n") + 2


def split_blocks(text: str) -> list[str]:
    """Split Markdown source into top-level blocks, in order, as markdown-it parses it.

    A fenced code block stays one block until its closing fence (or the end of the
    text), a list keeps its blank lines and nested fences, a setext underline stays with
    its heading, a table with its rows; whatever follows a closing fence starts a new
    block. Blank lines between blocks are dropped.
    """
    return [block.source for block in top_blocks(text)]


def code_blocks(text: str) -> list[str]:
    """The contents of every fenced code block in ``text``, in order (open ones too)."""
    found: list[str] = []
    for token in _tokens(text):
        if token.type == "fence" and token.map:
            body = token.content
            if _fence_open(token):
                found.append(body.rstrip("\n"))
            else:
                found.append(body.removesuffix("\n"))
    return found


def settled(blocks: list[MarkdownBlock], text: str, base: int = 0) -> int:
    """How many leading ``blocks`` (of ``text[base:]``) are final whatever text comes:
    a top-level block is closed for good once a whole line after it starts another, so
    all but the last, and not the one before it while the last one's first line is not
    whole yet (``#`` is a heading, ``#x`` continues the paragraph above)."""
    settled = len(blocks) - 1
    if blocks and text.find("\n", base + blocks[-1].offset) < 0:
        settled -= 1
    return max(0, settled)
