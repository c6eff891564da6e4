"""Thought headings (``**Subject**``) found in streamed thinking, wherever chunks split it.

Gemini opens each stretch of thinking with a bold line naming its subject. A stream may
cut that line anywhere (``**Reading the`` | `` request**``), so the heading is looked for
in the accumulated text, not in each delta: text that may still become a heading is held
back until it is one (or clearly is not), and everything else flows on at once.
"""

from __future__ import annotations

__all__ = ["ThoughtHeadings"]

_MAX_SUBJECT = 160
"""A bold run longer than this at a line start is emphasis, not a heading."""


class ThoughtHeadings:
    """Splits streamed thought text into (subject, text) pieces for one model call."""

    def __init__(self) -> None:
        self.subject: str | None = None
        """The latest heading seen; the text after it belongs to it."""
        self._held = ""
        self._line_start = True
        """The text let through so far ends at the start of a line (blanks aside)."""
        self._after_heading = False
        """Blank space right after a heading is dropped, as ``parse_thought`` does."""

    def feed(self, text: str) -> list[tuple[str | None, str]]:
        """Pieces ready to show; text that may be the start of a heading waits."""
        out: list[tuple[str | None, str]] = []
        buf = self._held + text
        self._held = ""
        while buf:
            start = self._heading_start(buf)
            if start is None:  # nothing here can open a heading
                self._let_through(buf, out)
                return out
            self._let_through(buf[:start], out)
            buf = buf[start:]
            if buf == "*":  # half a marker: wait for the next chunk
                self._held = buf
                return out
            rest = buf[2:]
            end = rest.find("**")
            newline = rest.find("\n")
            if end == -1 and newline == -1 and len(rest) <= _MAX_SUBJECT:
                self._held = buf  # the heading may close in the next chunk
                return out
            if end == -1 or (newline != -1 and newline < end) or end > _MAX_SUBJECT:
                self._let_through("**", out)  # bold text, not a heading
                buf = rest
                continue
            subject = rest[:end].strip()
            if subject:
                self.subject = subject
                self._after_heading = True
            buf = rest[end + 2 :]
        return out

    def flush(self) -> list[tuple[str | None, str]]:
        """The call ended: whatever was held back is plain text after all."""
        out: list[tuple[str | None, str]] = []
        held, self._held = self._held, ""
        self._let_through(held, out)
        return out

    def _heading_start(self, buf: str) -> int | None:
        """Where a ``**`` (or a lone trailing ``*``) opens a line, if anywhere."""
        line_start = self._line_start
        for index, char in enumerate(buf):
            opens = buf.startswith("**", index) or index == len(buf) - 1
            if line_start and char == "*" and opens:
                return index
            if char == "\n":
                line_start = True
            elif not char.isspace():
                line_start = False
        return None

    def _let_through(self, text: str, out: list[tuple[str | None, str]]) -> None:
        if self._after_heading:
            stripped = text.lstrip()
            if not stripped:
                return
            self._after_heading = False
            text = stripped
        if not text:
            return
        _, newline, tail = text.rpartition("\n")
        if newline:
            self._line_start = not tail.strip()
        else:
            self._line_start = self._line_start and not text.strip()
        if out and out[-1][0] == self.subject:
            out[-1] = (self.subject, out[-1][1] + text)
        else:
            out.append((self.subject, text))
