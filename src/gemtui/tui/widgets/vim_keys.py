"""Vim keys for the prompt (``/vim``): normal and insert mode, the common motions and
operators. Edits go through the TextArea's own edit calls, so ``u`` (and Ctrl+Z) undo
them like any typing.

Normal mode: ``h j k l w b e 0 $ gg G`` move; ``d c y`` take a motion (``dw``, ``c$``,
``yj``…) or double for the whole line (``dd cc yy``); ``x`` deletes a character, ``p``/``P``
put what was deleted or yanked, ``u`` undoes; ``i a I A o O`` enter insert mode, Esc
leaves it. Enter sends the prompt in either mode. No counts, no registers but one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from textual.message import Message
from textual.widgets import TextArea

__all__ = ["VimKeys", "VimMode", "VimModeChanged", "switch_vim"]

VimMode = Literal["normal", "insert"]

_WORD = re.compile(r"\w+|[^\w\s]+")
"""A vim ``word``: letters, digits and ``_``, or a run of other non-blank characters."""

_LINEWISE = frozenset("jkG") | {"gg"}
"""Motions an operator applies to whole lines."""
_INCLUSIVE = frozenset("e$")
"""Motions whose target character the operator takes too."""
_PASSED_ON = frozenset({"enter", "up", "down", "left", "right", "home", "end", "pageup"})
"""Keys normal mode leaves to the prompt (Enter sends; arrows and paging still work)."""


class VimKeys:
    """The vim state of one prompt: its mode, a pending operator, the one register."""

    def __init__(self, area: TextArea) -> None:
        self.area = area
        self.mode: VimMode = "insert"
        """``normal`` or ``insert``; a prompt starts in insert mode, ready for typing."""
        self.pending = ""
        """An operator (``d c y``) or ``g`` waiting for the rest of its command."""
        self.register = ""
        self.linewise = False
        """The register holds whole lines (``p`` puts them below the cursor's line)."""
        self.on_change: Callable[[VimMode], object] = lambda mode: None
        """Called on every mode change (``switch_vim`` tells the status line)."""

    # -- positions ---------------------------------------------------------------------------
    def _offset(self, location: tuple[int, int]) -> int:
        lines = self.area.text.split("\n")
        row, col = location
        return sum(len(line) + 1 for line in lines[:row]) + col

    def _location(self, offset: int) -> tuple[int, int]:
        before = self.area.text[:offset]
        row = before.count("\n")
        return row, offset - (before.rfind("\n") + 1)

    def _line(self, row: int) -> str:
        return self.area.document.get_line(row)

    # -- motions -----------------------------------------------------------------------------
    def _target(self, motion: str) -> int | None:
        """Where ``motion`` takes the cursor, as an offset (None: not a motion)."""
        text = self.area.text
        row, col = self.area.cursor_location
        here = self._offset((row, col))
        last_row = self.area.document.line_count - 1
        if motion == "h":
            return here - min(col, 1)
        if motion == "l":
            return here + (1 if col < len(self._line(row)) else 0)
        if motion in ("j", "k"):
            new_row = max(0, min(last_row, row + (1 if motion == "j" else -1)))
            return self._offset((new_row, min(col, len(self._line(new_row)))))
        if motion == "0":
            return here - col
        if motion == "$":
            return here - col + len(self._line(row))
        if motion == "gg":
            return 0
        if motion == "G":
            return self._offset((last_row, 0))
        words = [m.span() for m in _WORD.finditer(text)]
        if motion == "w":
            return next((s for s, _ in words if s > here), len(text))
        if motion == "e":
            return next((e - 1 for _, e in words if e - 1 > here), max(len(text) - 1, 0))
        if motion == "b":
            return next((s for s, _ in reversed(words) if s < here), 0)
        return None

    # -- keys --------------------------------------------------------------------------------
    def handle(self, key: str, character: str | None) -> bool:
        """Act on one key; True when vim took it (the prompt must not type or bind it)."""
        if self.mode == "insert":
            if key == "escape":
                self.set_mode("normal")
                row, col = self.area.cursor_location
                self.area.move_cursor((row, max(col - 1, 0)))
                return True
            return False
        if key == "escape":
            self.pending = ""
            return True
        if key in ("backspace", "delete"):  # as in vim: back a character, or x
            self._command("h" if key == "backspace" else "x")
            return True
        if key in _PASSED_ON or character is None or not character.isprintable():
            return False  # Enter, arrows, Ctrl keys: the prompt's as ever
        command = self.pending + character
        self.pending = ""
        if command in ("g", "d", "c", "y") or (command[0] in "dcy" and command[1:] == "g"):
            self.pending = command  # waiting for the rest (gg, dgg)
            return True
        if command[0] in "dcy" and len(command) >= 2:
            self._operate(command[0], command[1:])
        else:
            self._command(command)
        return True

    def _command(self, command: str) -> None:
        area = self.area
        row, col = area.cursor_location
        line = self._line(row)
        inserts = {
            "i": (row, col),
            "a": (row, min(col + 1, len(line))),
            "I": (row, len(line) - len(line.lstrip())),
            "A": (row, len(line)),
        }
        if command in inserts:
            area.move_cursor(inserts[command])
            self.set_mode("insert")
        elif command == "o":
            area.insert("\n", (row, len(line)))
            self.set_mode("insert")
        elif command == "O":
            area.insert("\n", (row, 0))
            area.move_cursor((row, 0))
            self.set_mode("insert")
        elif command == "x" and line:
            self.register, self.linewise = line[col : col + 1], False
            area.delete((row, col), (row, col + 1))
            self._rest_on_line()
        elif command in ("p", "P"):
            self._put(after=command == "p")
        elif command == "u":
            area.undo()
        else:
            target = self._target(command)
            if target is not None:
                area.move_cursor(self._location(target))
                self._rest_on_line()

    def _operate(self, operator: str, motion: str) -> None:
        """``d``, ``c`` or ``y`` over a motion (``dd``/``cc``/``yy``: the line)."""
        area = self.area
        row, _ = area.cursor_location
        if motion == operator or motion in _LINEWISE:
            target_row = row
            if motion != operator:
                target = self._target(motion)
                if target is None:
                    return
                target_row = self._location(target)[0]
            first, last = min(row, target_row), max(row, target_row)
            lines = area.text.split("\n")
            self.register, self.linewise = "\n".join(lines[first : last + 1]), True
            if operator == "y":
                area.move_cursor((first, 0))
            elif operator == "c":
                area.replace("", (first, 0), (last, len(lines[last])))
                area.move_cursor((first, 0))
                self.set_mode("insert")
            elif last + 1 < len(lines):
                area.delete((first, 0), (last + 1, 0))
            else:  # the last lines: take the newline before them instead
                start = (first - 1, len(lines[first - 1])) if first else (0, 0)
                area.delete(start, (last, len(lines[last])))
                area.move_cursor((max(first - 1, 0), 0) if first else (0, 0))
            return
        motion = "e" if operator == "c" and motion == "w" else motion  # vim's cw is ce
        target = self._target(motion)
        if target is None:
            return
        here = self._offset(area.cursor_location)
        begin, finish = min(here, target), max(here, target)
        if motion in _INCLUSIVE:
            finish = min(finish + 1, len(area.text))
        self.register, self.linewise = area.text[begin:finish], False
        if operator == "y":
            area.move_cursor(self._location(begin))
            return
        area.delete(self._location(begin), self._location(finish))
        area.move_cursor(self._location(begin))
        if operator == "c":
            self.set_mode("insert")
        else:
            self._rest_on_line()

    def _put(self, *, after: bool) -> None:
        area = self.area
        row, col = area.cursor_location
        if not self.register:
            return
        if self.linewise:
            if after:
                area.insert("\n" + self.register, (row, len(self._line(row))))
                area.move_cursor((row + 1, 0))
            else:
                area.insert(self.register + "\n", (row, 0))
                area.move_cursor((row, 0))
            return
        at = (row, min(col + 1, len(self._line(row)))) if after and self._line(row) else (row, col)
        area.insert(self.register, at)
        end = self._location(self._offset(at) + len(self.register) - 1)
        area.move_cursor(end)

    def _rest_on_line(self) -> None:
        """In normal mode the cursor sits on a character, never past the line's end."""
        row, col = self.area.cursor_location
        length = len(self._line(row))
        if col >= length > 0:
            self.area.move_cursor((row, length - 1))

    def set_mode(self, mode: VimMode) -> None:
        """Switch mode; the prompt tells the status line (``on_change``)."""
        self.mode = mode
        self.pending = ""
        self.on_change(mode)


class VimModeChanged(Message):
    """Vim keys were switched on or off, or their mode changed (the status line shows it)."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode
        """``normal``, ``insert``, or empty: vim keys are off."""


def switch_vim(area: TextArea, on: bool) -> VimKeys | None:
    """Vim keys for ``area`` (or none); the new state is posted from ``area``."""
    if not on:
        area.post_message(VimModeChanged(""))
        return None
    keys = VimKeys(area)
    keys.on_change = lambda mode: area.post_message(VimModeChanged(mode))
    keys.set_mode("insert")
    return keys
