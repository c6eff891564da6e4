"""Splitting a shell command into the simple commands policy has to judge one by one.

A prefix rule for ``git status`` must not let ``git status; rm -rf x`` through, so the
command is cut at ``&&``, ``||``, ``;``, ``|``, ``|&``, ``&`` and newlines outside
quotes, and each part remembers whether it redirects (``>``, ``>>``, ``<``, ``&>``,
``2>&1``, here-docs) or substitutes a command (``$(…)``, backticks, ``<(…)``), which a
prefix check cannot see into. A small quote-aware scanner does this rather than
``shlex``, which drops the quoting that tells ``echo '>'`` from ``echo >``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

__all__ = ["ShellSegment", "command_words", "has_redirection", "root_prefix", "split_shell"]

MULTI_COMMAND_TOOLS = frozenset(
    {"git", "npm", "pnpm", "yarn", "cargo", "docker", "kubectl", "pip", "pip3", "uv",
     "make", "go", "gh", "poetry", "bun"}
)  # fmt: skip
"""Commands whose second word picks the real action (``git push`` vs ``git status``)."""


@dataclass(frozen=True)
class ShellSegment:
    text: str
    redirection: bool = False
    substitution: bool = False


class _Scanner:
    def __init__(self, command: str) -> None:
        self.command = command
        self.segments: list[ShellSegment] = []
        self.buf: list[str] = []
        self.redirection = False
        self.substitution = False

    def flush(self) -> None:
        text = "".join(self.buf).strip()
        if text:
            self.segments.append(ShellSegment(text, self.redirection, self.substitution))
        self.buf = []
        self.redirection = self.substitution = False

    def run(self) -> list[ShellSegment] | None:
        s, n, i = self.command, len(self.command), 0
        quote: str | None = None
        while i < n:
            c = s[i]
            if quote == "'":
                self.buf.append(c)
                quote = None if c == "'" else quote
                i += 1
                continue
            if c == "\\":
                self.buf.append(s[i : i + 2])
                i += 2
                continue
            if c == "`" or s.startswith("$(", i):
                self.substitution = True
            if quote == '"':
                self.buf.append(c)
                quote = None if c == '"' else quote
                i += 1
                continue
            if c in "'\"":
                quote = c
                self.buf.append(c)
                i += 1
            elif c in "<>":
                self.redirection = True
                if s.startswith("(", i + 1):
                    self.substitution = True
                j = i + 1
                while j < n and s[j] in "<>&|":
                    j += 1
                self.buf.append(s[i:j])
                i = j
            elif c == "&" and s.startswith("&>", i):
                self.redirection = True
                self.buf.append("&>")
                i += 2
            elif c == "&":
                self.flush()
                i += 2 if s.startswith("&&", i) else 1
            elif c == "|":
                self.flush()
                i += 2 if s[i + 1 : i + 2] in ("|", "&") else 1
            elif c in ";\n":
                self.flush()
                i += 1
            else:
                self.buf.append(c)
                i += 1
        if quote is not None:
            return None
        self.flush()
        return self.segments


def split_shell(command: str) -> list[ShellSegment] | None:
    """The simple commands of ``command``, or None when its quotes do not balance."""
    return _Scanner(command).run()


def has_redirection(command: str) -> bool:
    """Whether any part of ``command`` redirects input or output outside quotes."""
    segments = split_shell(command)
    return segments is None or any(s.redirection for s in segments)


def command_words(text: str) -> list[str]:
    """The words of a simple command as the shell would see them (quotes removed)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def root_prefix(segment: str) -> str:
    """The part of a command an "allow for this session" should cover.

    ``git status -s`` → ``git status``; ``ls -la`` → ``ls``; a multi-command tool
    followed by an option (``git -C x log``) falls back to the first word.
    """
    words = command_words(segment)
    if not words:
        return ""
    if len(words) > 1 and words[0] in MULTI_COMMAND_TOOLS and not words[1].startswith("-"):
        return shlex.join(words[:2])
    return shlex.quote(words[0])
