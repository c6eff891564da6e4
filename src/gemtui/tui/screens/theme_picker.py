"""``/theme`` with no name: every theme in a list, the highlighted one shown live.

Twenty-odd names in a toast cannot be compared; a preview can. Esc puts the theme that
was in use back, Enter keeps the highlighted one (the caller saves it).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static

__all__ = ["ThemePicker"]


class ThemePicker(ModalScreen[str | None]):
    """A theme list whose highlight previews; dismisses with the name kept, or None."""

    DEFAULT_CSS = """
    ThemePicker { align: right middle; background: $background 0%; }
    ThemePicker > Vertical { width: 34; height: 90%; border: thick $primary;
        background: $surface; padding: 0 1; }
    ThemePicker .dialog-title { text-style: bold; height: 1; }
    ThemePicker OptionList { height: 1fr; border: none; }
    ThemePicker .dialog-keys { color: $text-muted; height: auto; }
    """

    BINDINGS = [Binding("escape", "restore", "Keep the previous theme")]

    def __init__(self, names: list[str], current: str) -> None:
        super().__init__()
        self.names = names
        self.previous = current
        """The theme in use when the picker opened: Esc puts it back."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Theme (now {self.previous})", classes="dialog-title")
            yield OptionList(*self.names, id="themes")
            yield Static("↑↓ preview · Enter keep · Esc back", classes="dialog-keys")

    def on_mount(self) -> None:
        themes = self.query_one("#themes", OptionList)
        if self.previous in self.names:
            themes.highlighted = self.names.index(self.previous)
        themes.focus()

    @on(OptionList.OptionHighlighted, "#themes")
    def _preview(self, event: OptionList.OptionHighlighted) -> None:
        self.app.theme = self.names[event.option_index]

    @on(OptionList.OptionSelected, "#themes")
    def _keep(self, event: OptionList.OptionSelected) -> None:
        name = self.names[event.option_index]
        self.app.theme = name
        self.dismiss(name)

    def action_restore(self) -> None:
        self.app.theme = self.previous
        self.dismiss(None)
