"""One short tip under the empty conversation: the first minute teaches, then gets out
of the way."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Static

__all__ = ["FIRST_TIP", "FirstTip"]

FIRST_TIP = (
    "Tip: Enter sends · tool calls wait for you (F8, then 1 allows) · @file attaches "
    "a file · !cmd runs a command · /help (F1) lists every key"
)
"""What a newcomer needs before the first prompt; /help has the rest."""


class FirstTip(Static):
    """The tip, shown while the transcript is empty; it leaves with the first line there
    (a prompt, a resumed conversation, a command's card), whichever path brought it."""

    DEFAULT_CSS = """
    FirstTip { height: auto; color: $text-muted; padding: 0 1; }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(FIRST_TIP, name=name, id=id, classes=classes)
        self._following = False

    def on_mount(self) -> None:
        for transcript in self.screen.query("#transcript"):  # else it is mounted later
            self.follow(transcript)

    def follow(self, transcript: Widget) -> None:
        """Leave when ``transcript`` has its first line."""
        if not self._following:
            self._following = True
            self.watch(transcript, "virtual_size", self._transcript_grew)

    def _transcript_grew(self) -> None:
        transcript = self.screen.query_one("#transcript")
        if transcript.virtual_size.height > 0:
            self.remove()
