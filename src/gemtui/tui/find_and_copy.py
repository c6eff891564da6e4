"""Ctrl+F finds in the conversation; text selected with the mouse is copied at once.

Why apart from ``app.py``: both are the app's keys and mouse, not the session's. The
copy goes through Textual's ``copy_to_clipboard``, which writes the terminal's OSC 52
sequence, so it reaches the person's own clipboard over SSH and in tmux (with
``set-clipboard on``) as well as in a local terminal.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding

from gemtui.tui.app_surface import AppSurface

__all__ = ["FindAndCopy"]


class FindAndCopy(AppSurface):
    """The app's find key and copy-on-select (a base of ``GemtuiApp``)."""

    BINDINGS: ClassVar = [
        # Priority: the prompt (Textual's TextArea) binds Ctrl+F to deleting a word.
        Binding("ctrl+f", "find", "Find in the conversation", priority=True, show=False),
    ]

    async def action_find(self) -> None:
        """Open the find bar above the prompt (or go back to it when open)."""
        from gemtui.tui.screen_reader import SCREEN_READER_CLASS
        from gemtui.tui.screens.main import MainScreen
        from gemtui.tui.widgets.find_bar import FindBar

        screen = self.screen
        if not isinstance(screen, MainScreen):
            raise SkipAction()  # another screen's own Ctrl+F (the sessions browser's)
        if self.has_class(SCREEN_READER_CLASS):  # the log is plain lines: the reader finds
            self.notify("Find: use your screen reader's own search over these lines.")
            return
        bar = next(iter(screen.query(FindBar).results()), None)
        focused = screen.focused
        if bar is None:
            bar = FindBar(screen.transcript, id="find")
            await screen.mount(bar, before=screen.prompt)
        elif focused is not None and bar in focused.ancestors_with_self:
            focused = bar.return_to  # Ctrl+F again in the bar: where it came from stays
        bar.open(focused)

    def on_text_selected(self, event: events.TextSelected) -> None:
        """Copy what the mouse selected (not in the prompt: it has its own keys) and say
        so briefly."""
        text = self.screen.get_selected_text()
        if text:
            self.copy_to_clipboard(text)
            lines = text.count("\n") + 1
            what = f"{lines} lines" if lines > 1 else f"{len(text)} characters"
            self.notify(f"Copied {what}.", timeout=2)
