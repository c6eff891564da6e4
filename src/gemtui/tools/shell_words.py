"""Words of bash text as tree-sitter parses them: the one value bash gives a word (quote
removal, ANSI-C escapes), or None when it depends on anything at run time; and the small
node helpers the walk in ``shell_syntax`` shares with it."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "BARE_TOKENS",
    "Word",
    "bare_newline",
    "late_words",
    "node_text",
    "short",
    "snippet",
    "split_by_newline",
    "word_value",
]

_BRACE = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_GLOB = re.compile(r"[*?]|\[.*\]")


# -- values --------------------------------------------------------------------------------

_C_ESCAPES = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_C_ESCAPE = re.compile(
    r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})"
    r"|U([0-9a-fA-F]{1,8})|(.))",
    re.S,
)


def _ansi_c(body: str) -> str | None:
    """The value of ``$'…'``, or None when it uses an escape not modelled (``\\c``…)."""
    failed = False

    def one(m: re.Match[str]) -> str:
        nonlocal failed
        simple, octal, hex2, u4, u8, _other = m.groups()
        if simple:
            return _C_ESCAPES[simple]
        try:
            if octal:
                return chr(int(octal, 8) & 0xFF)
            if hex2 or u4 or u8:
                return chr(int(hex2 or u4 or u8, 16))
        except (ValueError, OverflowError):
            pass
        failed = True
        return ""

    value = _C_ESCAPE.sub(one, body)
    return None if failed or "\x00" in value else value


def _unquoted_word(text: str) -> tuple[str, str]:
    """Quote removal of a bare word: (value, the text outside backslash escapes)."""
    out: list[str] = []
    bare: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
                bare.append("_")
            i += 2
            continue
        out.append(c)
        bare.append(c)
        i += 1
    return "".join(out), "".join(bare)


def _double_quoted(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def word_value(node: Node) -> str | None:
    """The single value bash gives a word, or None when it depends on anything at run time."""
    parts: list[str] = []
    bare: list[str] = []
    if not _collect(node, parts, bare):
        return None
    unquoted = "".join(bare)
    if _GLOB.search(unquoted) or _BRACE.search(unquoted) or unquoted.startswith("~"):
        return None
    return "".join(parts)


def _collect(node: Node, parts: list[str], bare: list[str]) -> bool:
    text = node_text(node)
    kind = node.type
    if kind in ("concatenation", "command_name"):
        return all(_collect(c, parts, bare) for c in node.children)
    if kind in ("word", "number", "variable_name"):
        value, unquoted = _unquoted_word(text)
        parts.append(value)
        bare.append(unquoted)
        return True
    if kind == "raw_string":
        parts.append(text[1:-1])
        bare.append("_")
        return True
    if kind == "ansi_c_string":
        decoded = _ansi_c(text[2:-1])
        if decoded is None:
            return False
        parts.append(decoded)
        bare.append("_")
        return True
    if kind in ("string", "translated_string"):
        inner = node.children[-1] if kind == "translated_string" else node
        for child in inner.children:
            if child.type in ('"', "$"):
                continue
            if child.type != "string_content":
                return False
            parts.append(_double_quoted(node_text(child)))
        bare.append("_")
        return True
    return False


BARE_TOKENS = frozenset(
    {"word", "number", "extglob_pattern", "regex", "test_operator", "variable_name",
     "special_variable_name", "file_descriptor"}
)  # fmt: skip


def bare_newline(text: str) -> bool:
    """Whether an unquoted token holds a newline that is not a backslash-newline."""
    start = 0
    while (i := text.find("\n", start)) != -1:
        start = i + 1
        run = 0  # backslashes just before it, counted in place (slicing made this quadratic)
        while run < i and text[i - run - 1] == "\\":
            run += 1
        if run % 2 == 0:
            return True
    return False


def late_words(redirect: Node) -> list[Node]:
    """The words a redirect node holds beyond its target, in order (see _late_arguments)."""
    if redirect.type == "file_redirect":
        return redirect.children_by_field_name("destination")[1:]
    if redirect.type != "heredoc_redirect":
        return []
    late: list[Node] = []
    for i, child in enumerate(redirect.children):
        if redirect.field_name_for_child(i) == "argument":
            late.append(child)
        elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            late.extend(late_words(child))
    return late


def split_by_newline(node: Node) -> bool:
    """Whether a bare line break stands between two children of a command or word."""
    children = node.children
    source = node.text or b""
    base = node.start_byte
    for left, right in pairwise(children):
        gap = source[left.end_byte - base : right.start_byte - base]
        if b"\n" in gap and bare_newline(gap.decode("utf-8", "replace")):
            return True
    return False


def snippet(node: Node) -> str:
    """A node's text short enough for a message."""
    return short(node_text(node))


def short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"


def node_text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


class Word(Struct):
    """One word of a command: its single value (None when bash decides it at run time)
    and its source text, shown when it has no value."""

    value: str | None
    source: str

    @property
    def literal(self) -> bool:
        return self.value is not None

    @property
    def shown(self) -> str:
        return self.value if self.value is not None else self.source
