"""The model's todo list (``write_todos``), kept in view while it works through it."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

__all__ = ["TodoPanel"]

_STYLE = {
    "completed": "$text-muted strike",
    "in_progress": "bold $text-accent",
    "cancelled": "$text-muted",
    "blocked": "$text-warning",
}


class TodoPanel(Static):
    """The current todo list; hidden until the model writes one."""

    DEFAULT_CSS = """
    TodoPanel {
        height: auto;
        max-height: 12;
        display: none;
    }
    TodoPanel.-has-todos {
        display: block;
    }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.items: list[tuple[str, str]] = []
        """(status, line with its mark) of each item, in the model's order."""

    def show_todos(self, statuses: list[str], lines: list[str]) -> None:
        """Replace the list (the model always sends all of it)."""
        self.items = list(zip(statuses, lines, strict=True))
        done = statuses.count("completed")
        self.border_title = f"Todos {done}/{len(statuses)}"
        self.set_class(bool(self.items), "-has-todos")
        self.update(
            Content("\n").join(
                Content.styled(line, _STYLE.get(status, "")) for status, line in self.items
            )
        )
