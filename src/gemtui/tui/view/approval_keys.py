"""The keys that answer an approval, for one call: what the queue's key line shows and
what the screen-reader mode says, from one list (no Textual here: the view model reads it).

A key is offered only where it acts: "server always" for an MCP call, "reach" where the
call has a file, folder or every-call scope to remember.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.bus.events import ToolCallSnapshot

__all__ = ["KeyHint", "call_offers", "keys_help", "spoken_keys"]

KeyHint = tuple[str, str, str, str]
"""(keys in full, e.g. ``a/1``; the short key, ``a``; what it does; in fewer words)."""

F8_FIRST: KeyHint = ("F8", "F8", "first, then", "then")

_SPOKEN: dict[str, str] = {
    "a": "allow once",
    "s": "allow for this session",
    "A": "allow always",
    "r": "reject",
    "f": "reject with feedback",
    "m": "modify",
    "S": "allow this MCP server always",
    "w": "choose what is remembered: this file, its folder or every call",
    "j/k": "next or previous call",
    "^a": "allow every edit waiting",
}
"""Each answering key in words (the diff view's layout says nothing to a listener)."""


def call_offers(call: ToolCallSnapshot) -> tuple[bool, bool]:
    """Whether ``call`` offers allowing its whole MCP server, and choosing the reach."""
    conf = call.confirmation
    return (conf is not None and conf.kind == "mcp", conf is not None and bool(conf.scopes))


def keys_help(*, server: bool, letters: bool = True, reach: bool = False) -> list[KeyHint]:
    """The keys line; an MCP call also offers allowing its whole server. Without letters
    (the queue took the focus by itself) no answer acts yet: the line leads with F8."""
    hints: list[KeyHint] = [
        ("a/1", "a", "allow", "allow"),
        ("s/2", "s", "session", "session"),
        ("A/3", "A", "always", "always"),
        ("r/4", "r", "reject", "reject"),
        ("f/5", "f", "feedback", "feedback"),
        ("m/6", "m", "modify", "modify"),
    ]
    if server:
        hints.append(("S/7", "S", "server always", "server"))
    if reach:
        hints.append(("w/8", "w", "reach: file/folder/all", "reach"))
    if not letters:  # the same answers by their digits alone
        digits = [(full[-1], full[-1], label, few) for full, _, label, few in hints]
        return [F8_FIRST, *digits, ("ctrl+a", "^a", "all edits", "edits")]
    return [
        *hints,
        ("j/k", "j/k", "next/prev", ""),
        ("d", "d", "diff view", "diff"),
        ("ctrl+a", "^a", "all edits", "edits"),
    ]


def _key_name(key: str) -> str:
    if key == "^a":
        return "Control A"
    if key == "j/k":
        return "j or k"
    return f"capital {key}" if key.isupper() else key


def spoken_keys(call: ToolCallSnapshot) -> str:
    """The keys that answer ``call`` after F8, in words: letters only (a digit never
    answers in the screen-reader mode), exactly those the queue offers for it."""
    server, reach = call_offers(call)
    said = [
        f"{_key_name(key)} {_SPOKEN[key]}"
        for _, key, _, _ in keys_help(server=server, reach=reach)
        if key in _SPOKEN
    ]
    return "To answer press F8, then " + ", ".join(said) + "."
