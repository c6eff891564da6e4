"""The thought stream: the model's thinking as it streams, grouped by subject."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

__all__ = ["ThoughtStream"]


class ThoughtGroup(Static):
    """All the thought text streamed under one subject."""

    DEFAULT_CSS = """
    ThoughtGroup {
        height: auto;
        margin-bottom: 1;
    }
    """

    def __init__(self, subject: str) -> None:
        super().__init__()
        self.subject = subject
        """The heading Gemini wrote as ``**Subject**``."""
        self.text = ""
        """The thought text so far, without its heading."""

    def append(self, text: str) -> None:
        self.text += text
        self.update(
            Content.assemble(
                (self.subject, "bold $text-accent"), "\n", (self.text.strip(), "$text-muted")
            )
        )


class ThoughtStream(VerticalScroll, can_focus=False):
    """Thoughts of the current prompt; a new subject starts a new group."""

    DEFAULT_CSS = """
    ThoughtStream {
        height: 1fr;
    }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._current: ThoughtGroup | None = None
        self._prompt_id: str | None = None

    def add_thought(self, text: str, subject: str | None = None, prompt_id: str = "") -> None:
        """Append streamed thought text; a prompt's first thought clears the last prompt's."""
        if prompt_id != self._prompt_id:
            self._prompt_id = prompt_id
            self.clear()
        if self._current is None or (subject and subject != self._current.subject):
            self._current = ThoughtGroup(subject or "Thinking")
            self.mount(self._current)
        self._current.append(text)
        self.scroll_end(animate=False)

    def groups(self) -> list[tuple[str, str]]:
        """(subject, text) of every group shown, oldest first."""
        return [(g.subject, g.text) for g in self.query(ThoughtGroup)]

    def clear(self) -> None:
        self._current = None
        self.remove_children()
