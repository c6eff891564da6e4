"""The screen-reader mode's log: the conversation as plain lines (``tui.screen_reader``)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from gemtui.tui.view import ops
from gemtui.tui.view.spoken import GREETING, SpokenLines
from gemtui.tui.view.terminal_safe import printable

__all__ = ["SpokenLog"]


class SpokenLog(RichLog, can_focus=False):
    """The conversation as plain lines, added at the end and never redrawn in place.

    Not focusable: keys go to the prompt (and, after F8, to the approval queue).
    """

    DEFAULT_CSS = """
    SpokenLog { height: 1fr; border: none; padding: 0; background: $surface; }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(
            wrap=True, markup=False, highlight=False, name=name, id=id, classes=classes
        )
        self.words = SpokenLines()
        """The rules of what each view operation says."""
        self.said: list[str] = []
        """Every line said so far, in order (what a screen reader has read)."""

    def on_mount(self) -> None:
        self.say(GREETING)

    def say(self, line: str) -> None:
        """Add one plain line at the end (no control character reaches the terminal)."""
        line = printable(line)
        self.said.append(line)
        self.write(Text(line), scroll_end=True)

    def say_op(self, op: ops.Op) -> None:
        """The lines one view operation adds (most add none)."""
        for line in self.words.lines(op):
            self.say(line)
