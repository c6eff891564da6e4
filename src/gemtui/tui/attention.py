"""The terminal's ways of getting attention: the bell, OSC 9 and OSC 777 (no Textual).

A background agent's task text comes from the model or the person; it reaches the
terminal inside an escape sequence, so every control character is taken out first:
an ESC or BEL in a task must never end the notification early and start a sequence of
its own (a title change, a clipboard write with OSC 52, a hyperlink).
"""

from __future__ import annotations

from msgspec import Struct

from gemtui.tui.view.terminal_safe import CONTROLS as _CONTROLS

__all__ = ["BEL", "AttentionSwitches", "attention_bytes", "clean", "osc9", "osc777"]

BEL = "\a"
"""The terminal bell; also what ends an OSC sequence here (the form every terminal
that shows these notifications reads)."""

MAX_CHARS = 200
"""Notification text is cut here: a desktop notification shows a line or two."""


def clean(text: str, *, separator: bool = False) -> str:
    """``text`` without control characters (each becomes a space), at most
    ``MAX_CHARS`` long; with ``separator``, without ``;`` either (OSC 777's field mark)."""
    out = _CONTROLS.sub(" ", text)
    if separator:
        out = out.replace(";", ",")
    return out[:MAX_CHARS]


def osc9(body: str) -> str:
    """iTerm2's notification (also WezTerm, Ghostty, Kitty, Windows Terminal)."""
    text = clean(body)
    if text[:1].isdigit():  # ConEmu reads "OSC 9 ; 4 ; …" as a progress bar, not text
        text = " " + text
    return f"\x1b]9;{text}{BEL}"


def osc777(title: str, body: str) -> str:
    """rxvt's ``notify;title;body`` (also foot, Ghostty, WezTerm, VTE terminals)."""
    return f"\x1b]777;notify;{clean(title, separator=True)};{clean(body, separator=True)}{BEL}"


class AttentionSwitches(Struct, frozen=True):
    """Which ways are on (``[general]`` settings, Gemini CLI's names)."""

    line: bool = True
    """A line in the agent view (and a toast on the main screen)."""
    bell: bool = True
    """``terminalBell``."""
    desktop: bool = False
    """``enableNotifications``: OSC 9 and OSC 777."""


def attention_bytes(title: str, body: str, switches: AttentionSwitches) -> str:
    """What to write to the terminal for one piece of attention (may be empty)."""
    out = BEL if switches.bell else ""
    if switches.desktop:
        out += osc9(f"{title}: {body}") + osc777(title, body)
    return out
