"""Omission placeholders: "// ... existing code ...", "# rest unchanged" in new text.

A model that abbreviates the code it means to keep writes such a line instead of the
code; written literally, it deletes what it stood for. Only lines that are nothing but a
comment, a bracketed note or bare text are considered, and a line already in the file is
not one: a comment the file had is kept, not refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["find_placeholders", "placeholder_error"]

MAX_PLACEHOLDER_CHARS = 200
"""A placeholder is a short note; longer lines are not looked at (nor paid for)."""
_OPENERS = ("<!--", "{/*", "/*", "//", "--", "#", ";", "*", "%", '"""', "'''")
_CLOSERS = ("-->", "*/}", "*/", '"""', "'''")
_DOTS = re.compile(r"\.{3,}|…")
_LEADING_DOTS = re.compile(r"^(?:\.{3,}|…)\s*(?=#|//)")
_WORDS = re.compile(r"[a-z0-9 '’,/&_-]+")
"""A placeholder is prose: a line with code characters left is code, not a note."""
_EDGES = " \t()[]{}<>:,;.!-–—=*"

_KEPT = (
    r"(?:code|file|content|contents|lines?|methods?|functions?|class(?:es)?|implementation|"
    r"logic|imports?|body|module|tests?|fields|props|styles|config|section|component|script|"
    r"cases|handlers?|definitions?|properties|attributes|members|steps|items|entries)"
)
_PHRASES = [
    re.compile(p)
    for p in (
        rf"^(?:the )?rest of (?:the |this |your )?(?:\w+ )?{_KEPT}\b",
        r"^(?:the )?rest(?: of (?:the |this )?\w+)? (?:is |are |remains? |stays? )?"
        r"(?:unchanged|the same|as before|omitted)\b",
        rf"^(?:\w+ )?(?:existing|unchanged|remaining|previous|original|other|same) {_KEPT}\b",
        rf"^(?:all |everything |keep |keep the )?(?:other |existing |remaining )?"
        rf"(?:{_KEPT} |everything else |the rest )?(?:is |are |remains? |stays? )?"
        r"(?:unchanged|omitted)(?: for brevity| here| below| above)?$",
        r"^(?:\w+ ){0,3}(?:omitted|elided) for brevity$",
        r"^(?:same as (?:before|above|original)|as before)$",
    )
]
_DOTTED = re.compile(
    r"^(?:(?:the )?rest\b|existing\b|unchanged\b|remaining\b|previous\b|original\b|other\b|"
    r"more\b|etc\b|same\b|keep\b|your\b)|\b(?:unchanged|omitted|as before|the same|goes here)\b"
)


def _core(line: str) -> tuple[str, bool]:
    """A line without comment markers, brackets and dots, lower-cased; and whether it
    had dots (an ellipsis marks most abbreviations)."""
    text = line.strip()
    bare = _LEADING_DOTS.sub("", text)  # "...  # existing code": Python's Ellipsis and a note
    led = bare != text
    text = bare
    for opener in _OPENERS:
        if text.startswith(opener):
            text = text[len(opener) :].strip()
            break
    for closer in _CLOSERS:
        if text.endswith(closer):
            text = text[: -len(closer)].strip()
            break
    dotted = led or bool(_DOTS.search(text))
    text = _DOTS.sub(" ", text).strip(_EDGES)
    return " ".join(text.lower().split()), dotted


def _is_placeholder(line: str) -> bool:
    if len(line) > MAX_PLACEHOLDER_CHARS:
        return False
    core, dotted = _core(line)
    if not _WORDS.fullmatch(core) or len(core.split()) > 8:
        return False
    if dotted and _DOTTED.search(core):
        return True
    return any(p.search(core) for p in _PHRASES)


def find_placeholders(new: str, known: Iterable[str] = (), limit: int = 5) -> list[str]:
    """Up to ``limit`` placeholder lines of ``new`` (stripped), leaving out any line that is
    also a line of one of ``known`` (old_string, the file): there it is real content."""
    lines: set[str] | None = None  # built on first need: most new text has no placeholder
    checked: set[str] = set()
    found: list[str] = []
    for line in new.splitlines():
        shown = line.strip()
        if shown in checked:
            continue
        checked.add(shown)
        if not _is_placeholder(shown):
            continue
        if lines is None:
            lines = {x.strip() for source in known for x in source.splitlines()}
        if shown not in lines:
            found.append(shown)
            if len(found) >= limit:
                break
    return found


def placeholder_error(found: list[str], field: str) -> str:
    """What the model is told, so it can send the full text instead."""
    listed = "; ".join(repr(p) for p in found[:5])
    if field == "old_string":
        return (
            f"old_string contains omission placeholder(s) {listed} that are not in the file. "
            "Nothing was changed. old_string must quote the file's text exactly, every line "
            "written out as the file has it (use read_file to see it); to keep code "
            "unchanged, leave it out of old_string and new_string rather than abbreviating it."
        )
    return (
        f"{field} contains omission placeholder(s) {listed}. Written literally, they would "
        f"replace real code with a comment. Nothing was changed. Send {field} again with the "
        "complete literal text, every line written out; to keep code unchanged, leave it out "
        "of old_string and new_string rather than abbreviating it."
    )
