"""Text from the model, a server or a file, made safe to reach the terminal (no Textual).

Rich and Textual drop only a few control characters (BEL, BS, VT, FF, CR); an ESC is
kept, so an answer holding ``ESC ] 52 ; c ; …`` would write the clipboard and
``ESC ] 0 ; …`` would retitle the window. Every C0 and C1 control but the newline and
the tab is replaced by a visible stand-in (``␛`` for ESC) before the view model hands
text to the screen: the planted sequence cannot act, and a command awaiting approval
still shows that it holds one.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

__all__ = ["CONTROLS", "printable", "printable_fields", "without_colour"]

CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Every C0 and C1 control character, DEL included."""

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""The controls a line of shown text must not carry: all but ``\\n`` and ``\\t``."""

_SGR = re.compile(r"(?:\x1b\[|\x9b)[0-9;:]*m")
"""Select Graphic Rendition: a colour or a bold, nothing else (``ESC [ 31 m``)."""

T = TypeVar("T")


def without_colour(text: str) -> str:
    """A program's output without its colour codes (``pytest --color=yes``, ``ls
    --color``): they would show as ``␛[31m`` once made printable, and say nothing a
    person needs. Only SGR goes; every other sequence is still shown harmless."""
    return _SGR.sub("", text) if "\x1b" in text or "\x9b" in text else text


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return ""  # a carriage return ends Windows lines: dropped, as Rich would
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛, ␀, ␇…
    return "\u2421" if code == 0x7F else "\ufffd"


def printable(text: str) -> str:
    """``text`` with each control that could start a terminal sequence shown as a
    harmless stand-in instead (newlines and tabs kept)."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_stand_in, text)


def printable_fields(value: T) -> T:
    """``value`` with every string inside it made :func:`printable`: dataclass and event
    fields, dicts, lists and tuples, however deep. Unchanged values come back as they were (the
    same object), so ops stay comparable and cheap on the streaming path."""
    return _clean(value)  # type: ignore[no-any-return]


def _clean(value: Any) -> Any:
    if type(value) is str:
        return printable(value)
    if isinstance(value, dict):
        items = {_clean(k): _clean(v) for k, v in value.items()}
        changed = any(a is not b for a, b in zip(items.values(), value.values(), strict=True))
        return items if changed or list(items) != list(value) else value
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        cleaned = [_clean(v) for v in value]
        if all(a is b for a, b in zip(cleaned, value, strict=True)):
            return value
        return cleaned if isinstance(value, list) else tuple(cleaned)
    if hasattr(type(value), "__struct_fields__"):  # an engine event (a msgspec Struct)
        from msgspec.structs import replace

        changes = {}
        for name in value.__struct_fields__:
            old = getattr(value, name)
            if (new := _clean(old)) is not old:
                changes[name] = new
        return replace(value, **changes) if changes else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for field in dataclasses.fields(value):
            if not field.init:
                continue
            old = getattr(value, field.name)
            new = _clean(old)
            if new is not old:
                changes[field.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value
