"""The thought stream: the model's thinking as it streams, grouped by subject."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.app import RenderResult
from textual.containers import VerticalScroll
from textual.widget import Widget

from gemtui.tui.widgets.markdown_look import (
    MARKDOWN_CSS,
    MARKDOWN_STYLES,
    ThemedMarkdown,
    markdown_theme,
)

__all__ = ["ThoughtStream"]


class ThoughtGroup(Widget):
    """All the thought text streamed under one subject, as Markdown under its heading."""

    COMPONENT_CLASSES = {f"thought--{name}" for name in MARKDOWN_STYLES}

    DEFAULT_CSS = (
        """
    ThoughtGroup {
        height: auto;
        margin-bottom: 1;
        color: $text-muted;
    """
        + MARKDOWN_CSS.format(p="thought")
        + "}"
    )

    def __init__(self, subject: str) -> None:
        super().__init__()
        self.subject = subject
        """The heading Gemini wrote as ``**Subject**``."""
        self.text = ""
        """The thought text so far, without its heading."""

    def append(self, text: str) -> None:
        self.text += text
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        theme = markdown_theme(lambda name: self.get_component_rich_style(f"thought--{name}"))
        dark = self.app.current_theme.dark
        source = f"# {self.subject}\n\n{self.text.strip()}"
        return ThemedMarkdown(source, theme, "monokai" if dark else "friendly")


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

    def render(self) -> RenderResult:
        """Empty, the pane says what it is for (else an untitled blank beside the
        conversation); the groups cover it once a thought comes."""
        if self.children:
            return super().render()
        return Text("Thoughts: the model's thinking shows here (F2 hides)", style="dim")

    def groups(self) -> list[tuple[str, str]]:
        """(subject, text) of every group shown, oldest first."""
        return [(g.subject, g.text) for g in self.query(ThoughtGroup)]

    def clear(self) -> None:
        self._current = None
        self.remove_children()
