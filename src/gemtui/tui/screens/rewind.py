"""``/rewind``: pick a prompt of this session, see what the code rewind would change, and
restore code, conversation or both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gemtui.tui.screens.dialogs import DIALOG_CSS

if TYPE_CHECKING:
    from collections.abc import Callable

    from gemtui.agent.checkpointing import PromptPoint
    from gemtui.checkpoints import RewindPlan

    PreviewFn = Callable[[PromptPoint], str]

__all__ = ["MODES", "RewindChoice", "RewindScreen"]

MODES = (
    ("both", "Code and conversation"),
    ("conversation", "Conversation only"),
    ("code", "Code only"),
)


@dataclass(frozen=True)
class RewindChoice:
    """What the person chose: the prompt and ``both``, ``conversation`` or ``code``."""

    point: PromptPoint
    mode: str


def preview_text(plan: RewindPlan, diff: str) -> str:
    """What the code rewind would do, hand edits first, then what it leaves alone (never
    saved: it cannot be given back), then the diff."""
    lines = [f"changed by hand since, restored too: {p}" for p in plan.by_hand]
    for root, change in plan.steps:
        verb = {"D": "remove", "A": "restore", "M": "change back"}[change.status]
        lines.append(f"{verb:<11} {root.shown(change.path)}")
    lines += [left.line() for left in plan.left]
    if not plan.steps and not plan.left:
        lines.append("The files are already as they were before this prompt.")
    elif not plan.steps:
        lines.append("Nothing else to change.")
    return "\n".join(lines) + ("\n\n" + diff if diff else "")


class RewindScreen(ModalScreen[RewindChoice | None]):
    """Step one lists the prompts; step two shows the preview and the three choices."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="RewindScreen")
        + """
    RewindScreen #rewind-preview { height: 1fr; border: round $primary-darken-2; }
    RewindScreen OptionList { height: auto; max-height: 12; }
    """
    )
    BINDINGS = [Binding("escape", "back", "Back")]

    def __init__(self, points: list[PromptPoint], preview: PreviewFn) -> None:
        super().__init__()
        self._points = points
        self._preview = preview
        self._chosen: PromptPoint | None = None

    spoken = (
        "Rewind to before a prompt. Up and Down choose the prompt, Enter shows what "
        "rewinding to it would undo, Escape goes back."
    )
    """The dialog in words, for the screen-reader mode's log."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Rewind to before a prompt", classes="dialog-title")
            yield OptionList(*self._prompt_options(), id="rewind-list")
            with VerticalScroll(id="rewind-preview"):
                yield Static("", id="rewind-diff", markup=False)
            yield Static("Enter chooses · Esc goes back", classes="dialog-keys", id="rewind-keys")

    def _prompt_options(self) -> list[Option]:
        if not self._points:
            return [Option("No prompt of this session has changed files yet.", disabled=True)]
        options = []
        for i, point in enumerate(self._points):
            text = " ".join(point.prompt.split())
            text = text if len(text) <= 60 else text[:59] + "…"
            files = ", ".join(point.files[:4]) + (" …" if len(point.files) > 4 else "")
            options.append(Option(f"“{text}”  {files or '(no file changed)'}", id=f"p{i}"))
        return options

    def on_mount(self) -> None:
        self.query_one("#rewind-preview").display = False

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if self._chosen is None and option_id.startswith("p"):
            self._chosen = self._points[int(option_id[1:])]
            self._show_modes(self._chosen)
        elif self._chosen is not None and option_id.startswith("m-"):
            self.dismiss(RewindChoice(self._chosen, option_id[2:]))

    def _show_modes(self, point: PromptPoint) -> None:
        listing = self.query_one("#rewind-list", OptionList)
        listing.clear_options()
        listing.add_options([Option(label, id=f"m-{mode}") for mode, label in MODES])
        listing.highlighted = 0
        self.query_one("#rewind-diff", Static).update(self._preview(point))
        self.query_one("#rewind-preview").display = True
        title = " ".join(point.prompt.split())[:60]
        self.query_one(".dialog-title", Static).update(f"Rewind to before “{title}”")

    def action_back(self) -> None:
        if self._chosen is None:
            self.dismiss(None)
            return
        self._chosen = None
        listing = self.query_one("#rewind-list", OptionList)
        listing.clear_options()
        listing.add_options(self._prompt_options())
        self.query_one("#rewind-preview").display = False
        self.query_one(".dialog-title", Static).update("Rewind to before a prompt")
