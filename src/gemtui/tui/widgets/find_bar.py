"""Ctrl+F: find text in the conversation, then go back to where you were.

The bar sits above the prompt while it is open: typing finds (ignoring case) and
highlights every match, the one in front brightest; Enter or Down goes to the next,
Shift+Enter or Up to the previous, round the ends, with "2 of 7" beside the text. Esc
closes it and puts the scroll position and the focus back as they were before Ctrl+F,
so a look back costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static

if TYPE_CHECKING:
    from textual.widget import Widget

    from gemtui.tui.widgets.transcript_text import TranscriptText

__all__ = ["FindBar"]


class FindBar(Horizontal):
    """The find line: what to find, and where the match in front is among all."""

    DEFAULT_CSS = """
    FindBar { height: 1; background: $panel; }
    FindBar > #find-input { width: 1fr; height: 1; border: none; padding: 0 1; }
    FindBar > #find-count { width: auto; min-width: 12; padding: 0 1; color: $text-muted; }
    """

    BINDINGS: ClassVar = [
        Binding("escape", "close", "Close find", priority=True),
        Binding("down", "step(1)", "Next match", show=False),
        Binding("up", "step(-1)", "Previous match", show=False),
        Binding("shift+enter", "step(-1)", "Previous match", show=False, priority=True),
    ]

    def __init__(
        self,
        transcript: TranscriptText,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.transcript = transcript
        """Where the text is found."""
        self._scroll_y = transcript.scroll_y
        self.return_to: Widget | None = None
        """Where the focus goes back to on Esc."""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Find in the conversation", id="find-input")
        yield Static("", id="find-count", markup=False)

    def open(self, return_to: Widget | None) -> None:
        """Start (or start again) from the view as it is now; Esc comes back here."""
        self._scroll_y = self.transcript.scroll_y
        self.return_to = return_to
        self.query_one(Input).focus()

    @property
    def count_text(self) -> str:
        """What the count says now ("2 of 7", "no match", or nothing)."""
        return str(self.query_one("#find-count", Static).content)

    @on(Input.Changed, "#find-input")
    def _find(self, event: Input.Changed) -> None:
        self.transcript.find(event.value)
        self._count()

    @on(Input.Submitted, "#find-input")
    def _next(self, event: Input.Submitted) -> None:
        event.stop()  # never a prompt: the app must not send it
        self.action_step(1)

    def action_step(self, step: int) -> None:
        self.transcript.find_step(step)
        self._count()

    def _count(self) -> None:
        query = self.query_one(Input).value
        total = len(self.transcript.matches)
        text = f"{self.transcript.current_match + 1} of {total}" if total else "no match"
        self.query_one("#find-count", Static).update(text if query else "")

    def action_close(self) -> None:
        """Back to where you were: the highlight gone, the view and the focus restored."""
        transcript = self.transcript
        transcript.clear_find()
        transcript.scroll_to(y=self._scroll_y, animate=False, immediate=True)
        back = self.return_to
        self.remove()
        if back is not None and back.is_attached:
            back.focus()
