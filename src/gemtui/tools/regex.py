"""Linear-time regular expressions for patterns a model or a repository chose.

Python's ``re`` backtracks: ``^(a+)+$`` over ``aaaa…a!`` runs for ages while holding the
GIL, so no signal handler gets to run and the whole program freezes. Every pattern that
comes from outside (grep_search's pattern and exclude, glob patterns turned into regexes)
is compiled with RE2 instead (``google-re2``), whose matching time is linear in the input.
RE2 has no backreferences or lookarounds; such a pattern is refused with a message the
model can act on rather than run with a backtracking engine.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import re2

__all__ = ["LinearPattern", "PatternError", "compile_linear"]


class LinearPattern(Protocol):
    """The part of a compiled RE2 pattern the tools use (same calls as ``re.Pattern``)."""

    pattern: str

    def search(self, text: str) -> Any: ...

    def match(self, text: str) -> Any: ...

    def fullmatch(self, text: str) -> Any: ...


class PatternError(ValueError):
    """A pattern RE2 cannot compile; the message says why in words a model understands."""


_UNSUPPORTED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\(\?<?[=!]"), "lookahead/lookbehind assertions ((?=...), (?!...), (?<=...))"),
    (re.compile(r"(?<!\\)(?:\\\\)*\\[1-9]|\(\?P="), "backreferences (\\1, (?P=name))"),
    (re.compile(r"\(\?>|[*+?}]\+"), "atomic groups or possessive quantifiers"),
    (re.compile(r"\(\?\("), "conditional groups ((?(1)...))"),
)
_END_Z = re.compile(r"(?<!\\)((?:\\\\)*)\\Z")


def _translate(pattern: str) -> str:
    """Python spellings RE2 knows under another name (``\\Z`` is RE2's ``\\z``)."""
    return _END_Z.sub(r"\1\\z", pattern)


def compile_linear(pattern: str, *, ignore_case: bool = False) -> LinearPattern:
    """Compile ``pattern`` for linear-time matching, or raise PatternError saying why not."""
    options = re2.Options()
    options.log_errors = False  # RE2 would otherwise print parse errors on stderr
    options.case_sensitive = not ignore_case
    try:
        compiled: LinearPattern = re2.compile(_translate(pattern), options)
    except re2.error as exc:
        for probe, what in _UNSUPPORTED:
            if probe.search(pattern):
                raise PatternError(
                    f"the pattern uses {what}, which the linear-time search engine does not "
                    "support (so that no pattern can hang the search); rewrite it without them"
                ) from exc
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise PatternError(f"invalid regular expression: {detail}") from exc
    return compiled
