"""The screen-reader mode (``--screen-reader``, ``[ui.accessibility] screenReader``).

The same app, engine, view model and approval queue, drawn for a screen reader: the App
carries the ``-screen-reader`` class, whose rules in ``main.tcss`` hide the panes that
redraw in place (the transcript's cards and spinners, the side panes, the status line)
and take every border and scroll bar away; a ``SpokenLog`` in the transcript's place
adds one plain line per event (``view.spoken``), and notifications (mode changes,
warnings) become lines there too instead of boxes that vanish. Approvals stay in the
one approval queue: F8, then one letter, as the log says.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.content import Content
from textual.markup import MarkupError
from textual.widgets import RichLog

from gemtui.redact import redact
from gemtui.tui.view.spoken import GREETING, SpokenLines

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from gemtui.tui.view import ops

__all__ = [
    "SCREEN_READER_CLASS",
    "SpokenLog",
    "say_notice",
    "say_op",
    "spoken_log",
    "use_screen_reader",
]

SCREEN_READER_CLASS = "-screen-reader"
"""The App class that switches the screen to plain lines (rules in ``main.tcss``)."""


def use_screen_reader(app: App[Any], on: bool) -> None:
    """Switch the mode for the app's life: plain lines, no animation."""
    app.set_class(on, SCREEN_READER_CLASS)
    if on:
        app.animation_level = "none"


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
        """Add one plain line at the end."""
        self.said.append(line)
        self.write(Text(line), scroll_end=True)

    def say_op(self, op: ops.Op) -> None:
        """The lines one view operation adds (most add none)."""
        for line in self.words.lines(op):
            self.say(line)


def say_op(screen: Screen[Any], op: ops.Op) -> None:
    """Say ``op`` in the screen's log, when the mode put one there."""
    for log in screen.query("#spoken").results(SpokenLog):
        log.say_op(op)


def say_notice(app: App[Any], message: str, *, title: str, severity: str, markup: bool) -> bool:
    """Say a notification in the front screen's log, masked; False when not in the mode
    (or no log is open yet): the caller shows a toast then."""
    if not app.has_class(SCREEN_READER_CLASS):
        return False
    logs = [
        log for screen in app.screen_stack for log in screen.query("#spoken").results(SpokenLog)
    ]
    if not logs:
        return False
    text = message
    if markup:
        with contextlib.suppress(MarkupError):  # a message that only looks like markup
            text = Content.from_markup(message).plain
    prefix = {"warning": "Warning", "error": "Error"}.get(severity, "Note")
    said = " ".join(redact(f"{title}: {text}" if title else text).split())
    logs[-1].say(f"{prefix}: {said}")
    return True


def spoken_log(app: App[Any]) -> list[SpokenLog]:
    """The log for the main screen to compose, in the mode only."""
    return [SpokenLog(id="spoken")] if app.has_class(SCREEN_READER_CLASS) else []
