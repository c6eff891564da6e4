"""The person's memories: one-line facts under a heading of their GEMINI.md, written by
``/memory add`` and the ``save_memory`` tool, read back into every session's prompt.

The heading is Gemini CLI's, so a GEMINI.md shared with it keeps one list; an older
gemtui heading is still found and appended to.

A fact may come from the model (which may be repeating a hostile file), and the file it
lands in is part of every later system instruction. So a fact always stays one list item:
line breaks of every kind are folded into spaces, leading list, heading and quote marks
are dropped, and an HTML comment opener (which would hide everything after it) is
escaped.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = [
    "MAX_FACT_CHARS",
    "MEMORY_HEADING",
    "add_memory",
    "add_memory_text",
    "clean_fact",
    "saved_memories",
]

MEMORY_HEADING = "## Gemini Added Memories"
_HEADINGS = frozenset({MEMORY_HEADING.lower(), "## gemtui memories"})
MAX_FACT_CHARS = 1000
"""A memory is a sentence or two, not a document."""

_LEADING_MARKS = re.compile(r"^(?:[-*+#>]+\s*|\d+[.)]\s+)+")


def clean_fact(fact: str) -> str:
    """``fact`` as one safe list-item text ("" when nothing is left)."""
    printable = "".join(ch if ch.isprintable() else " " for ch in fact)
    text = " ".join(printable.split())  # str.split() breaks at every Unicode line break too
    text = _LEADING_MARKS.sub("", text).strip()
    text = text.replace("<!--", "&lt;!--")
    if len(text) > MAX_FACT_CHARS:
        text = text[: MAX_FACT_CHARS - 1].rstrip() + "…"
    return text


def _is_heading(line: str) -> bool:
    return line.strip().lower() in _HEADINGS


def add_memory_text(text: str, fact: str) -> str:
    """``text`` (a GEMINI.md) with ``- fact`` appended to its memories section, the
    section created at the end when missing."""
    item = "- " + clean_fact(fact)
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if _is_heading(line))
    except StopIteration:
        body = text.rstrip("\n")
        return (body + "\n\n" if body else "") + f"{MEMORY_HEADING}\n\n{item}\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    lines.insert(end, item)
    return "\n".join(lines) + "\n"


def saved_memories(text: str) -> list[str]:
    """The facts listed under the memories heading of ``text``."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if _is_heading(line))
    except StopIteration:
        return []
    facts: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if line.startswith("- "):
            facts.append(line[2:].strip())
    return facts


def add_memory(file: Path, fact: str) -> str:
    """Append ``fact`` to the memories section of ``file`` (created if need be); returns
    the new text."""
    if not clean_fact(fact):
        raise ValueError("a memory needs some text")
    old = file.read_text(encoding="utf-8") if file.exists() else ""
    new = add_memory_text(old, fact)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(new, encoding="utf-8")
    return new
