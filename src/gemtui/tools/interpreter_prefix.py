"""What "allow for this session / always" may remember of an interpreter's command.

``python3`` alone would allow ``python3 -c 'anything'``: allowing an interpreter allows
every program. So the rule names what it ran: its module (``python3 -m pytest``), its
script (``node build.js``), or, for code given inline (``-c``, ``-e``), the whole
command and nothing more; an interpreter reading its input gets no rule at all.
"""

from __future__ import annotations

import shlex

__all__ = ["INTERPRETERS", "interpreter_prefix"]

INTERPRETERS = frozenset(
    {"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "ruby",
     "perl", "php", "lua", "luajit", "Rscript", "julia", "osascript", "pwsh", "powershell"}
)  # fmt: skip
"""Programs that run whatever code their arguments name."""

_INLINE_CODE = frozenset({"-c", "-e", "-E", "-r", "-p", "--eval", "--print", "-Command"})
"""Options whose value is code to run (``python -c``, ``node -e``, ``perl -E``, ``php -r``)."""

_MODULE = frozenset({"-m"})
"""Options whose value names a module to run (``python -m pytest``)."""


def interpreter_prefix(words: tuple[str, ...]) -> str | None:
    """The prefix a rule may save for ``words`` when they run an interpreter, else None.

    A rule matches word-wise prefixes, so what it saves must end where the program is
    named: words after it only reach the program. Any other option before that point
    (``-W ignore``, ``-u``) may take a value, so where the program starts is unknown:
    no rule then; the call simply asks each time.
    """
    if not words or words[0] not in INTERPRETERS:
        return None
    rest = words[1:]
    if not rest:
        return ""  # the interpreter reading its input: any later code would match
    first = rest[0]
    if first in _INLINE_CODE or (first[:2] in ("-c", "-e") and len(first) > 2):
        return shlex.join(words)  # the code is the command: only exactly it
    if first in _MODULE:
        return shlex.join(words[:3]) if len(rest) > 1 else ""
    if first == "--":
        return shlex.join(words[:3]) if len(rest) > 1 else ""
    if first.startswith("-"):
        return ""
    return shlex.join(words[:2])  # the script it runs
