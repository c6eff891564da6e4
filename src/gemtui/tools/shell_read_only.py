"""Whether a command line the person typed (``!ls -la``) only looks: read by the same
bash grammar the policy reads (``shell_syntax``), and strict where it cannot see.

"Allow read-only commands I type" lets such a line run without the approval; anything
that could write, delete or run something else still asks: a second command (``ls; rm
x``), a redirection (``ls > f``), a substitution (``cat $(rm x)``), a variable set for
the command, a word from an expansion, or a program outside the short list below.
Programs that can write or run others through an option (``find -delete``, ``rg --pre``,
``tree -o``, ``sort -o``, ``git`` with a planted config) are not on it.
"""

from __future__ import annotations

import re

from gemtui.tools.shell_syntax import analyze

__all__ = ["READ_ONLY_PROGRAMS", "typed_read_only"]

READ_ONLY_PROGRAMS = frozenset(
    {
        *("ls", "pwd", "cat", "head", "tail", "wc", "echo", "grep", "egrep", "fgrep"),
        *("stat", "du", "df", "which", "whoami", "uname", "basename", "dirname", "realpath"),
    }
)
"""Programs that only read, whatever their options."""


def _by_path(line: str, name: str) -> bool:
    """Whether ``name`` is run by a path (``./ls`` could be a planted script)."""
    pattern = r"(?:^|[\s;|&({])[^\s;|&({]*/" + re.escape(name) + r"(?:$|[\s;|&)}])"
    return re.search(pattern, line) is not None


def typed_read_only(line: str) -> bool:
    """True when every command of ``line`` is visible, literal, unredirected, run by its
    name (not a path) and on the read-only list (no variable set for it)."""
    analysis = analyze(line)
    if analysis.hidden or analysis.redirection or analysis.unsafe_assignments:
        return False
    if not analysis.commands:
        return False
    return all(
        c.words
        and all(c.literal)
        and not c.assignments
        and not c.redirection
        and not c.via
        and c.name in READ_ONLY_PROGRAMS
        and not _by_path(line, c.name)
        for c in analysis.commands
    )
