"""The screen-reader mode (``--screen-reader``, ``[ui.accessibility] screenReader``).

The same app, engine, view model and approval queue, drawn for a screen reader: the App
carries the ``-screen-reader`` class, whose rules in ``main.tcss`` hide the panes that
redraw in place (the transcript's cards and spinners, the side panes, the status line)
and take every border and scroll bar away; a ``SpokenLog`` in the transcript's place
adds one plain line per event (``view.spoken``), and notifications (mode changes,
warnings) become lines there too instead of boxes that vanish. Approvals stay in the
one approval queue: F8, then one letter, as the log says.

Everything here is imported with the app, so the log widget itself (and its parts)
loads only when the mode is on.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.markup import MarkupError

from gemtui.redact import redact

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from gemtui.tui.view import ops
    from gemtui.tui.widgets.spoken_log import SpokenLog

__all__ = [
    "SCREEN_READER_CLASS",
    "say_dialogs",
    "say_line",
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


def _logs(app: App[Any], screens: list[Screen[Any]]) -> list[SpokenLog]:
    """The mode's logs on these screens (none, at once, outside the mode)."""
    if not app.has_class(SCREEN_READER_CLASS):
        return []
    from gemtui.tui.widgets.spoken_log import SpokenLog

    return [log for screen in screens for log in screen.query("#spoken").results(SpokenLog)]


def say_op(screen: Screen[Any], op: ops.Op) -> None:
    """Say ``op`` in the screen's log, when the mode put one there."""
    for log in _logs(screen.app, [screen]):
        log.say_op(op)


def say_line(app: App[Any], line: str) -> None:
    """Say ``line`` in the front log (a question a dialog asks with no view op)."""
    for log in _logs(app, app.screen_stack)[-1:]:
        log.say(redact(line))


def say_resumed(screen: Screen[Any], earlier: list[tuple[str, str]]) -> None:
    """A resumed session's earlier prompts and answers (``(role, text)``), said in order
    before the new ones (the transcript draws them without events: nothing else would
    say them)."""
    from gemtui.tui.view import ops

    for log in _logs(screen.app, [screen]):
        log.say(f"Resumed a saved session: {len(earlier)} earlier messages follow.")
        for role, text in earlier:
            if role == "user":
                log.say_op(ops.UserPromptShown(text))
            else:
                log.say_op(ops.AnswerText(text))
                log.say_op(ops.AnswerClosed())
        log.say("End of the earlier messages. Type your next prompt.")


def say_notice(app: App[Any], message: str, *, title: str, severity: str, markup: bool) -> bool:
    """Say a notification in the front screen's log, masked; False when not in the mode
    (or no log is open yet): the caller shows a toast then."""
    logs = _logs(app, app.screen_stack)
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


def say_dialogs(app: App[Any]) -> None:
    """From now on, each dialog that comes to the front is said as a line: its question
    and the keys that answer it (the ``spoken`` text it provides). A dialog is drawn over
    the log, in boxes a screen reader reads as noise or not at all."""
    if app.has_class(SCREEN_READER_CLASS):
        app.screen_change_signal.subscribe(app, lambda screen: _say_dialog(app, screen))


def _say_dialog(app: App[Any], screen: Screen[Any]) -> None:
    spoken = getattr(screen, "spoken", None)
    if not isinstance(spoken, str) or not spoken or screen is not app.screen:
        return  # the main screen, or a dialog already gone again
    logs = _logs(app, app.screen_stack)
    if logs:
        logs[-1].say(" ".join(f"Dialog: {redact(spoken)}".split()))


def spoken_log(app: App[Any]) -> list[SpokenLog]:
    """The log for the main screen to compose, in the mode only."""
    if not app.has_class(SCREEN_READER_CLASS):
        return []
    from gemtui.tui.widgets.spoken_log import SpokenLog

    return [SpokenLog(id="spoken")]
