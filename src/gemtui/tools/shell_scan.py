"""Checks on bash source for what tree-sitter's grammar misreads: a backslash-newline
that joins words, a substitution bash would run where the grammar saw none, and a tree
too deep to look nodes up in. Each finding hides the command (see ``shell_syntax``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gemtui.tools.shell_words import node_text

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["deeper_than", "joined_by_continuation", "unseen_substitution"]


def joined_by_continuation(source: bytes, root: Node) -> bool:
    """Whether a backslash-newline joins two words (bash joins them; the grammar does not)."""
    start = 0
    while (i := source.find(b"\\\n", start)) != -1:
        start = i + 2
        run = 0
        while i - run >= 0 and source[i - run : i - run + 1] == b"\\":
            run += 1
        if run % 2 == 0:
            continue
        before = source[i - 1 : i] if i > 0 else b" "
        after = source[i + 2 : i + 3] or b" "
        if before.isspace() or after.isspace():
            continue
        node = root.descendant_for_byte_range(i, i + 2)
        if node is not None and node.type in ("raw_string", "comment", "heredoc_body"):
            continue
        return True
    return False


_OPENERS = re.compile(rb"`|\$\(|[<>]\(")
_DELIMITERS = frozenset({"`", "$(", "$((", "<(", ">("})
_SUBSTITUTIONS = frozenset({"command_substitution", "arithmetic_expansion", "process_substitution"})


def unseen_substitution(source: bytes, root: Node) -> str | None:
    """A substitution bash would run where the grammar saw none (``${x:-`cmd`}``, nested
    backquotes, backquotes in a here-document), or None when every one is accounted for."""
    for m in _OPENERS.finditer(source):
        i = m.start()
        node = root.descendant_for_byte_range(i, m.end())
        if node is None or not _accounted(node, source, i, m.group()):
            return m.group().decode()
    return None


def _accounted(node: Node, source: bytes, i: int, opener: bytes) -> bool:
    parent = node.parent
    if node.type in _DELIMITERS and parent is not None and parent.type in _SUBSTITUTIONS:
        return True
    run = 0
    while i - run - 1 >= 0 and source[i - run - 1 : i - run] == b"\\":
        run += 1
    in_backquotes = False
    current: Node | None = node
    while current is not None:
        kind = current.type
        if kind in ("raw_string", "comment", "ansi_c_string"):
            return True
        if kind in ("string", "translated_string") and opener in (b"<(", b">("):
            return True
        if kind == "heredoc_redirect":
            start = next((c for c in current.children if c.type == "heredoc_start"), None)
            if start is not None and any(q in node_text(start) for q in "'\"\\"):
                return True
            break
        if kind == "command_substitution" and source[current.start_byte] == ord("`"):
            in_backquotes = True
        current = current.parent
    return run % 2 == 1 and not in_backquotes


def deeper_than(root: Node, limit: int) -> bool:
    """Whether the syntax tree is more than ``limit`` nodes deep (one cursor pass)."""
    cursor = root.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > limit:
                return True
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
            depth -= 1
