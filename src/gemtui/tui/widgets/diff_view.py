"""A full, syntax-highlighted diff: unified or side by side, never truncated."""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from gemtui.tui.widgets.code_highlight import guess_language, highlight

__all__ = ["DiffView", "parse_unified", "side_by_side_rows"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True)
class DiffLine:
    """One line of a diff with its kind and line numbers, ready to draw."""

    sign: str
    """``+``, ``-``, `` `` (context), ``@`` (hunk header) or ``#`` (file header)."""
    text: str
    old_no: int | None = None
    new_no: int | None = None


def parse_unified(diff: str) -> list[DiffLine]:
    """The lines of a unified diff with their old and new line numbers."""
    out: list[DiffLine] = []
    old = new = 0
    in_hunk = False
    for raw in diff.splitlines():
        if not in_hunk and raw.startswith(("--- ", "+++ ", "diff ", "index ")):
            out.append(DiffLine("#", raw))
            continue
        hunk = _HUNK.match(raw)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            in_hunk = True
            out.append(DiffLine("@", raw))
        elif raw.startswith("+"):
            out.append(DiffLine("+", raw[1:], None, new))
            new += 1
        elif raw.startswith("-"):
            out.append(DiffLine("-", raw[1:], old, None))
            old += 1
        elif raw.startswith("\\"):
            out.append(DiffLine("@", raw))
        else:
            out.append(DiffLine(" ", raw[1:] if raw.startswith(" ") else raw, old, new))
            old += 1
            new += 1
    return out


def side_by_side_rows(lines: list[DiffLine]) -> list[tuple[DiffLine | None, DiffLine | None]]:
    """Pair removed and added runs so a change sits on one row."""
    rows: list[tuple[DiffLine | None, DiffLine | None]] = []
    removed: list[DiffLine] = []
    added: list[DiffLine] = []

    def flush() -> None:
        for i in range(max(len(removed), len(added))):
            rows.append(
                (removed[i] if i < len(removed) else None, added[i] if i < len(added) else None)
            )
        removed.clear()
        added.clear()

    for line in lines:
        if line.sign == "-":
            if added:
                flush()
            removed.append(line)
        elif line.sign == "+":
            added.append(line)
        else:
            flush()
            rows.append((line, line))
    flush()
    return rows


_SIGN_STYLE = {"+": "$diff-added", "-": "$diff-removed"}


def _highlighted(lines: list[DiffLine], language: str) -> list[Content]:
    """Each line's code highlighted as one block, so strings and comments keep context."""
    code_lines = [line.text if line.sign in "+- " else "" for line in lines]
    block = highlight("\n".join(code_lines), language=language) if code_lines else Content("")
    pieces = block.split("\n", allow_blank=True)
    pieces += [Content("")] * (len(lines) - len(pieces))
    out: list[Content] = []
    for line, code in zip(lines, pieces, strict=False):
        if line.sign in "#@":
            out.append(Content.styled(line.text, "bold $text-secondary"))
        else:
            out.append(code)
    return out


def _row(line: DiffLine, code: Content, number: int | None) -> Content:
    gutter = f"{number:>4} " if number is not None else "     "
    if line.sign in "#@":
        return code
    style = _SIGN_STYLE.get(line.sign)
    sign = Content.styled(line.sign, f"bold {style}") if style else Content(" ")
    row = Content.assemble((gutter, "$text-muted"), sign, " ", code)
    return row.stylize_before(f"on {style} 15%") if style else row


class DiffView(Vertical):
    """A diff preview; ``side_by_side`` toggles the layout (key ``d`` in the queue)."""

    DEFAULT_CSS = """
    DiffView { height: auto; }
    DiffView > Static { height: auto; width: 1fr; }
    DiffView Horizontal { height: auto; }
    DiffView #diff-old, DiffView #diff-new { width: 1fr; text-wrap: nowrap; }
    """

    side_by_side: reactive[bool] = reactive(False, recompose=True)
    """Show old and new next to each other instead of one unified column."""

    def __init__(self, diff: str, *, path: str | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff = diff
        """The unified diff text, shown in full."""
        self.lines = parse_unified(diff)
        self.language = guess_language("", path) if path else "text"

    def compose(self) -> ComposeResult:
        codes = _highlighted(self.lines, self.language)
        if not self.side_by_side:
            rendered = [
                _row(line, code, line.new_no if line.sign != "-" else line.old_no)
                for line, code in zip(self.lines, codes, strict=True)
            ]
            yield Static(Content("\n").join(rendered), id="diff-unified")
            return
        code_of = {id(line): code for line, code in zip(self.lines, codes, strict=True)}
        left: list[Content] = []
        right: list[Content] = []
        for old, new in side_by_side_rows([ln for ln in self.lines if ln.sign != "#"]):
            if old is not None and old is new and old.sign == "@":
                left.append(code_of[id(old)])
                right.append(Content(""))
                continue
            left.append(_row(old, code_of[id(old)], old.old_no) if old else Content(""))
            right.append(_row(new, code_of[id(new)], new.new_no) if new else Content(""))
        with Horizontal():
            yield Static(Content("\n").join(left), id="diff-old")
            yield Static(Content("\n").join(right), id="diff-new")
