"""Where a ``replace`` edit lands: exact text first, then whitespace-flexible lines, then a
bounded approximate match over line windows.

Models (small local ones above all) rarely copy a block byte for byte: indentation drifts,
trailing spaces vanish, a CRLF file is quoted with LF, one token is misremembered. Failing
such an edit costs a round trip and often a loop, so the edit is placed by the first
strategy that finds a place; each strategy must find exactly one place (or, with
``allow_multiple``, every place for the exact and flexible ones), and more than one is an
error that names the lines, so the model can add context instead of guessing.
"""

from __future__ import annotations

import bisect
import difflib
import enum
import re

from msgspec import Struct

from gemtui.tools.edit_indent import reindent

__all__ = [
    "FUZZY_FLOOR",
    "AmbiguousMatch",
    "EditMatchError",
    "MatchStrategy",
    "NoMatch",
    "ResolvedEdit",
    "TooLarge",
    "resolve_edit",
]

FUZZY_FLOOR = 0.9
"""Least similarity (difflib ratio over whitespace-normalised lines) a fuzzy window needs."""
FUZZY_MIN_CHARS = 30
"""Shorter old_strings never match fuzzily: one changed token is then most of the text."""
FUZZY_MAX_OLD_CHARS = 20_000
"""Longer old_strings are not matched fuzzily: one comparison would cost too much."""
FUZZY_BUDGET = 10_000_000
"""Five per line stepped over plus, per pair of differing lines compared, the product of
their lengths (difflib's cost grows with it), in all windows together, before the fuzzy
search gives up (about a second of work)."""
MAX_FUZZY_LINE = 400
"""Longer lines that differ are not compared character by character (quadratic cost)."""
MAX_RESULT_CHARS = 20 * 1024 * 1024
"""An edit whose result would be longer is refused before the text is built (a million
commas each replaced by 10 kB would be 10 GB, and the preview builds it)."""


class MatchStrategy(enum.Enum):
    """How old_string was found (the value is what a tool result's data records)."""

    EXACT = "exact"
    FLEXIBLE = "flexible"
    FUZZY = "fuzzy"

    @property
    def phrase(self) -> str:
        """What the approval title and the card say ("matched with flexible whitespace")."""
        return _PHRASES[self]


_PHRASES = {
    MatchStrategy.EXACT: "matched exactly",
    MatchStrategy.FLEXIBLE: "matched with flexible whitespace",
    MatchStrategy.FUZZY: "matched approximately",
}


class EditMatchError(Exception):
    """old_string cannot be placed; the message is written for the model."""


class NoMatch(EditMatchError):
    """No strategy found old_string."""


class TooLarge(EditMatchError):
    """The edited text would pass MAX_RESULT_CHARS."""

    def __init__(self, size: int) -> None:
        self.size = size
        """Characters the edited text would have (at least)."""
        super().__init__(
            f"the edit would make the file longer than {MAX_RESULT_CHARS // (1024 * 1024)} MiB "
            "(too many places, or too long a new_string)"
        )


class AmbiguousMatch(EditMatchError):
    """A strategy found old_string in more than one place."""

    def __init__(self, strategy: MatchStrategy, lines: list[int], total: int = 0) -> None:
        self.strategy = strategy
        self.lines = lines
        """The first line of each candidate (of the first ten, for exact matches)."""
        self.total = max(total, len(lines))
        how = "" if strategy is MatchStrategy.EXACT else f" ({strategy.phrase})"
        where = ", ".join(str(n) for n in lines[:10])
        if self.total > 10:
            where += f" and {self.total - 10} more"
        super().__init__(
            f"expected 1 occurrence but found {self.total}{how}, starting at lines {where}"
        )


class ResolvedEdit(Struct, frozen=True):
    """The content after the edit, and where and how old_string was found."""

    proposed: str
    strategy: MatchStrategy
    spans: tuple[tuple[int, int], ...]
    """First and last line (1-based, in the original) of each replaced place."""
    similarity: float = 1.0
    occurrences: int = 0
    """Places replaced, when more than ``spans`` lists (exact, allow_multiple)."""

    @property
    def count(self) -> int:
        return max(self.occurrences, len(self.spans))

    def describe(self) -> str:
        """One sentence on how the edit was placed (empty for an exact match)."""
        where = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in self.spans)
        if self.strategy is MatchStrategy.FLEXIBLE:
            return (
                f"Matched with flexible whitespace at line(s) {where}: old_string differed from "
                "the file in indentation, trailing spaces or line endings; new_string was "
                "re-indented to the file's indentation."
            )
        if self.strategy is MatchStrategy.FUZZY:
            return (
                f"Matched approximately ({self.similarity:.0%} similar) at line(s) {where}: "
                "old_string was not in the file as given. Re-read the file before editing "
                "it again."
            )
        return ""


class _Lines(Struct, frozen=True):
    """A text split into lines, with each line's start offset (end = next start - 1)."""

    lines: list[str]
    starts: list[int]

    @classmethod
    def of(cls, text: str) -> _Lines:
        lines = text.split("\n")
        starts: list[int] = []
        pos = 0
        for line in lines:
            starts.append(pos)
            pos += len(line) + 1
        return cls(lines, starts)

    def span(self, first: int, count: int) -> tuple[int, int]:
        """Character offsets of lines ``first .. first+count-1`` without the last newline."""
        last = first + count - 1
        return self.starts[first], self.starts[last] + len(self.lines[last])


def resolve_edit(content: str, old: str, new: str, *, allow_multiple: bool = False) -> ResolvedEdit:
    """``content`` with ``old`` replaced by ``new``, placed by the first strategy that works.

    ``content`` has LF newlines. Raises NoMatch or AmbiguousMatch (messages for the model).
    """
    exact = _exact(content, old, new, allow_multiple)
    if exact is not None:
        return exact
    old_n, new_n = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    core, lead, trail = _trimmed(old_n.split("\n"))
    if not core:
        raise NoMatch("0 occurrences found for old_string")
    text = _Lines.of(content)
    replacement = _trim_like(new_n.split("\n"), lead, trail)
    flexible = _flexible_starts(text, core)
    if flexible:
        if len(flexible) > 1 and not allow_multiple:
            raise AmbiguousMatch(MatchStrategy.FLEXIBLE, [i + 1 for i in flexible])
        return _splice(content, text, flexible, core, replacement, MatchStrategy.FLEXIBLE)
    fuzzy, similarity = _fuzzy_starts(text, core)
    if len(fuzzy) > 1:
        raise AmbiguousMatch(MatchStrategy.FUZZY, [i + 1 for i in fuzzy])
    if not fuzzy:
        raise NoMatch("0 occurrences found for old_string")
    return _splice(content, text, fuzzy, core, replacement, MatchStrategy.FUZZY, similarity)


def _exact(content: str, old: str, new: str, allow_multiple: bool) -> ResolvedEdit | None:
    total = content.count(old)
    if total == 0:
        return None
    lines: list[int] = []  # of the first ten places: a million matches stay cheap
    line, prev, pos = 1, 0, content.find(old)
    while pos != -1 and len(lines) < 10:
        line += content.count("\n", prev, pos)
        lines.append(line)
        prev, pos = pos, content.find(old, pos + len(old))
    if total > 1 and not allow_multiple:
        raise AmbiguousMatch(MatchStrategy.EXACT, lines, total)
    size = len(content) + total * (len(new) - len(old))
    if size > MAX_RESULT_CHARS:
        raise TooLarge(size)
    extra = old.rstrip("\n").count("\n")
    spans = tuple((n, n + extra) for n in lines)
    return ResolvedEdit(content.replace(old, new), MatchStrategy.EXACT, spans, occurrences=total)


def _trimmed(lines: list[str]) -> tuple[list[str], int, int]:
    """Lines without blank ones at either end, and how many were dropped at each end."""
    lead = 0
    while lead < len(lines) and not lines[lead].strip():
        lead += 1
    trail = 0
    while trail < len(lines) - lead and not lines[len(lines) - 1 - trail].strip():
        trail += 1
    return lines[lead : len(lines) - trail], lead, trail


def _trim_like(lines: list[str], lead: int, trail: int) -> list[str]:
    """new_string's lines less as many blank lines at each end as old_string dropped."""
    start = 0
    while start < lead and start < len(lines) and not lines[start].strip():
        start += 1
    end = len(lines)
    while len(lines) - end < trail and end > start and not lines[end - 1].strip():
        end -= 1
    return [line.rstrip("\r") for line in lines[start:end]]


def _flexible_starts(text: _Lines, core: list[str]) -> list[int]:
    """Non-overlapping windows whose lines equal ``core``'s but for surrounding whitespace.

    One C-speed search over the stripped lines joined (each line between newlines, so a
    hit starts at a line): comparing window by window cost lines × old_string's length,
    34 s for 100k one-letter lines against a 4 kB old_string."""
    stripped = [line.strip() for line in text.lines]
    hay = "\n" + "\n".join(stripped) + "\n"
    needle = "\n" + "\n".join(line.strip() for line in core) + "\n"
    starts = [0]  # offset in hay of the newline before each line
    for line in stripped:
        starts.append(starts[-1] + len(line) + 1)
    n = len(core)
    found: list[int] = []
    pos = hay.find(needle)
    while pos != -1:
        i = bisect.bisect_left(starts, pos)
        found.append(i)
        if i + n >= len(starts):
            break
        pos = hay.find(needle, starts[i + n])
    return found


_SPACE = re.compile(r"\s+")


def _norm(line: str) -> str:
    return _SPACE.sub(" ", line.strip())


def _fuzzy_starts(text: _Lines, core: list[str]) -> tuple[list[int], float]:
    """Distinct windows of ``core``'s line count at least FUZZY_FLOOR similar to it.

    Similarity is difflib's ratio taken line by line (the i-th line of the window against
    the i-th of old_string), weighted by length; a window is dropped as soon as it cannot
    reach the floor. Overlapping windows near one place are one candidate (the best of
    them). The work is bounded: past FUZZY_BUDGET the search fails rather than guesses.
    """
    target = [_norm(line) for line in core]
    size = sum(len(t) for t in target)
    if not FUZZY_MIN_CHARS <= size <= FUZZY_MAX_OLD_CHARS:
        return [], 0.0
    n = len(core)
    keys = [_norm(line) for line in text.lines]
    if len(keys) < n:
        return [], 0.0
    prefix = [0]
    for key in keys:
        prefix.append(prefix[-1] + len(key))
    tail = [0] * (n + 1)  # tail[k]: length of target lines k.. (an upper bound on matches)
    for k in range(n - 1, -1, -1):
        tail[k] = tail[k + 1] + len(target[k])
    cache: dict[tuple[str, int], float] = {}
    spent = 0
    scored: list[tuple[float, int]] = []
    for i in range(len(keys) - n + 1):
        total = prefix[i + n] - prefix[i] + size
        need = FUZZY_FLOOR * total / 2  # matched characters a window needs
        if min(prefix[i + n] - prefix[i], size) < need:
            continue  # lengths alone rule it out
        got = 0.0
        for k in range(n):
            line = keys[i + k]
            spent += 5  # a step costs about five character pairs compared
            if line == target[k]:
                got += len(line)
            else:
                known = cache.get((line, k))
                if known is None:
                    spent += len(line) * len(target[k])
                    if spent > FUZZY_BUDGET:
                        raise _too_large()
                    known = _line_matches(line, target[k])
                    cache[(line, k)] = known
                got += known
            rest = min(prefix[i + n] - prefix[i + k + 1], tail[k + 1])
            if got + rest < need:
                break
            if spent > FUZZY_BUDGET:  # equal lines cost steps too (cached pairs as well)
                raise _too_large()
        else:
            scored.append((2 * got / total if total else 1.0, i))
    taken = bytearray(len(keys))
    picked: list[tuple[float, int]] = []
    for ratio, i in sorted(scored, key=lambda s: (-s[0], s[1])):
        if not any(taken[i : i + n]):
            picked.append((ratio, i))
            taken[i : i + n] = b"\x01" * n
    picked.sort(key=lambda p: p[1])
    best = max((r for r, _ in picked), default=0.0)
    return [i for _, i in picked], best


def _too_large() -> NoMatch:
    return NoMatch(
        "0 occurrences found for old_string, and the file is too large to look for an "
        "approximate match"
    )


def _line_matches(a: str, b: str) -> float:
    """Characters two lines share in difflib's sense (ratio times mean length); very long
    differing lines count as sharing nothing, which only ever prevents a match."""
    if len(a) > MAX_FUZZY_LINE or len(b) > MAX_FUZZY_LINE:
        return 0.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.ratio() * (len(a) + len(b)) / 2


def _splice(
    content: str,
    text: _Lines,
    starts: list[int],
    core: list[str],
    replacement: list[str],
    strategy: MatchStrategy,
    similarity: float = 1.0,
) -> ResolvedEdit:
    """Replace the whole lines of each window, new_string re-indented to the file's."""
    n = len(core)
    pieces: list[str] = []
    pos = size = 0
    for i in starts:
        start, end = text.span(i, n)
        lines = reindent(replacement, core, text.lines[i : i + n])
        if not lines:  # a deletion takes the window's line break with it
            if end < len(content):
                end += 1
            elif start > 0:
                start -= 1
        pieces.append(content[pos:start])
        pieces.append("\n".join(lines))
        size += len(pieces[-2]) + len(pieces[-1])
        if size > MAX_RESULT_CHARS:
            raise TooLarge(size + len(content) - pos)
        pos = end
    pieces.append(content[pos:])
    spans = tuple((i + 1, i + n) for i in starts)
    return ResolvedEdit("".join(pieces), strategy, spans, similarity)
