"""Notices an answer that repeats itself while it streams, so it can be cut early.

Why: a model caught in a loop writes the same sentence until its output limit, costing
minutes and tokens; Gemini CLI watches the streamed text for this. The thresholds are
its content check's: a 50-character passage seen 10 times, its occurrences on average
no more than 5 passages' length apart, is a loop. Rather than count every window in
Python, the passage ending at every 25th character of prose is looked for in the text
just before it (``str.find``, in C): a loop that long always contains such a point, so
the result is the same whatever the chunking, at a small fraction of the cost.

Code blocks, tables, lists, headings, block quotes and dividers repeat by nature (a
table's borders, a list's markers, code's short lines), so they are not counted, and
each one starts the count afresh.

Lines are classified by their first characters, which may arrive split across chunks:
the start of a line waits until it is known, so the result never depends on how the
provider cut the stream.
"""

from __future__ import annotations

import re

from msgspec import Struct, field

__all__ = ["StreamLoopDetector"]

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_FENCE = re.compile(r"\s*(```|~~~)")
_STRUCTURE = re.compile(r"\s*([|#>]|[-*+](\s|$)|\d{1,9}[.)](\s|$)|([-=_*])\4\4)")
_DECIDE_AT = 12
"""Characters of a line (after its indentation) that always suffice to classify it."""
_LONG_INDENT = 64
"""A line indented this far is prose for our purpose, whatever follows (a line of only
spaces this long would otherwise wait for ever), so its kind never depends on where the
stream was cut."""


class StreamLoopDetector(Struct):
    """Feed an answer's text as it streams; ``feed`` says when it turned into a loop."""

    chunk_size: int = 50
    threshold: int = 10
    """Occurrences of one passage that make a loop (when close together)."""
    distance_factor: int = 5
    """Occurrences at most this many passage lengths apart on average."""
    _tail: str = field(default="")
    """The last prose characters, as many as one check looks back over."""
    _end: int = field(default=0)
    """Prose characters since the count last started afresh."""
    _in_code: bool = field(default=False)
    _line: str = field(default="")
    """The current line's start, while its kind is not known yet."""
    _kind: str | None = field(default=None)
    """``prose``, ``skip`` or ``fence`` for the current line; None until known."""

    def reset(self) -> None:
        """Forget everything (a retried stream starts over)."""
        self._in_code = False
        self._line, self._kind = "", None
        self._forget()

    def feed(self, text: str) -> str | None:
        """Take the next piece of the answer; a message when the answer is looping."""
        return self.feed_until_loop(text)[0]

    def feed_until_loop(self, text: str) -> tuple[str | None, int]:
        """``feed``, and how much of ``text`` was read when the loop was seen (all of it
        when none was): a stream that arrives in large batches is cut there, not after
        the whole batch has been shown."""
        used = 0
        for line in _LINE.findall(text):
            found, at = self._take(line)
            if found:
                return found, used + at
            used += len(line)
        return None, len(text)

    def _take(self, piece: str) -> tuple[str | None, int]:
        """One piece of one line (ending with its line break, if it has one); a loop's
        message and how far into ``piece`` it was seen."""
        ended = piece.endswith("\n")
        held = 0
        """Characters of the line from earlier pieces, counted with this one."""
        if self._kind is None:
            held = len(self._line)
            self._line += piece
            self._kind = self._classify(self._line, ended)
            if self._kind is None:
                return None, 0
            piece, self._line = self._line, ""
            if self._kind == "fence":  # once per fence line, however it was cut
                self._in_code = not self._in_code
        found: tuple[str | None, int] = (None, 0)
        if self._kind == "prose":
            message, at = self._count(piece)
            found = (message, max(0, at - held))
        else:
            self._forget()
        if ended:
            self._kind = None
        return found

    def _classify(self, line: str, ended: bool) -> str | None:
        body = line.lstrip()
        if len(line) - len(body) >= _LONG_INDENT:  # decided by its indentation, however cut
            return "skip" if self._in_code else "prose"
        undecided = not body or _could_still_be_marked(body)
        if undecided and not ended and len(body) < _DECIDE_AT:
            return None
        if _FENCE.match(body):
            return "fence"
        if self._in_code or _STRUCTURE.match(body):
            return "skip"
        return "prose"

    def _forget(self) -> None:
        self._tail, self._end = "", 0

    def _count(self, text: str) -> tuple[str | None, int]:
        """Count ``text``, prose; a loop's message and where in ``text`` it was seen."""
        size, threshold = self.chunk_size, self.threshold
        # the stretch ``threshold`` occurrences fill when they are just close enough
        span = size + size * self.distance_factor * (threshold - 1)
        stride = max(1, size // 2)
        buf, origin = self._tail + text, self._end - len(self._tail)
        start = self._end
        self._end += len(text)
        first = max(size, -(-(start + 1) // stride) * stride)
        find = buf.find
        for at in range(first, self._end + 1, stride):
            i = at - origin
            window = buf[i - size : i]
            low = max(0, i - span)
            if threshold > 1 and find(window, low, i) == i - size:  # only itself: prose
                continue
            if _occurrences(buf, window, low, i, threshold) >= threshold:
                message = (
                    "The model kept repeating the same text, so its answer was cut "
                    f"(a {size}-character passage {threshold} times in a row)."
                )
                return message, at - start
        self._tail = buf[-span:]
        return None, 0


def _occurrences(text: str, window: str, start: int, end: int, enough: int) -> int:
    """How often ``window`` occurs in ``text[start:end]``, overlaps counted, up to
    ``enough`` (ordinary prose: two C-level searches, the window itself the only one)."""
    found = 0
    while found < enough:
        start = text.find(window, start, end)
        if start < 0:
            break
        found += 1
        start += 1
    return found


def _could_still_be_marked(body: str) -> bool:
    """Whether more characters could still make this line start a fence or structure
    (``1`` may become ``12.``, ``-`` may become ``- item`` or ``---``)."""
    probe = body.rstrip()
    if len(probe) < len(body):  # whitespace after the start: the start is known
        return False
    return bool(re.fullmatch(r"`{1,2}|~{1,2}|\d{1,9}[.)]?|[-*+=_]{1,2}", probe))
