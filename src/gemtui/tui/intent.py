"""Consent by intent: a key typed as text never answers a question that loosens consent.

One rule for every place that asks — the approval queue, the yolo and auto_edit
confirmations, the folder-trust question and the other yes/no dialogs: a key that types
text answers only once the person put the question in front *on purpose*. Until then it
is text, and text goes to the prompt, whole and in order; nothing is decided.

What counts as on purpose is a gesture nobody makes while writing a sentence: F8 ("answer
the question in front") or a click, for the approval queue and every dialog alike, or the
whole command that opened a dialog (``/approval-mode yolo``, the command palette, Enter
on a row of a screen the person browses). Not Tab: it completes ``@paths`` in the prompt,
so it is part of typing. A shortcut (Ctrl+Y, Shift+Tab) or a question that appears by
itself (folder trust, a call arriving) is never on purpose: "y" typed as the start of
"yes", "3 things" or "1. use" stay text. The rule counts gestures, not time, so the same
keys give the same outcome typed slowly or in one burst.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

from gemtui.tui.widgets.prompt_input import PromptInput

__all__ = ["AnswersOnPurpose", "ConsentDialog", "type_into_prompt"]

ResultT = TypeVar("ResultT")


class AnswersOnPurpose:
    """Mixin for a node whose answering actions wait until it is in front on purpose.

    The actions named in ``ANSWERS`` are disabled (``check_action`` says False) while
    ``on_purpose`` is false, so their keys are not bound at all: the app hands a printable
    key on to the prompt instead.
    """

    ANSWERS: ClassVar[frozenset[str]] = frozenset()
    """The actions that answer the question (and so need intent)."""

    on_purpose: bool = False
    """The person put this question in front on purpose: its answer keys act."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Answers act only on purpose; every other action as usual."""
        if action in self.ANSWERS:
            return self.on_purpose
        return True


def type_into_prompt(app: App[object], event: events.Key | events.Paste) -> bool:
    """Type a key (or a paste) into the conversation's prompt as if it were focused.

    Returns False when there is nothing to type or no prompt to type into (the key is
    then simply not an answer).
    """
    prompt = next(
        (
            found
            for screen in reversed(app.screen_stack)
            for found in screen.query("#prompt").results(PromptInput)
        ),
        None,
    )
    if prompt is None or prompt.read_only:
        return False
    if isinstance(event, events.Paste):
        text = event.text
    elif event.key == "backspace":
        prompt.action_delete_left()
        return True
    else:
        text = event.character or ""
    if not text:
        return False
    start, end = prompt.selection
    prompt.replace(text, start, end, maintain_selection_offset=False)
    return True


class ConsentDialog(AnswersOnPurpose, ModalScreen[ResultT]):
    """A modal question whose printable answer keys act only when it is in front on
    purpose; until then typed keys go to the prompt and F8 (or a click) chooses to
    answer. Any other key that types text goes to the prompt even then. Esc always
    declines: declining never loosens consent.

    Subclasses bind their answer keys to actions listed in ``ANSWERS``, give Esc an
    action that is not, and say their keys with ``keys_line``.
    """

    BINDINGS: ClassVar[list[Binding]] = [  # type: ignore[assignment]
        Binding("f8", "answer_here", "Answer here", show=False),
    ]

    ESC_SAYS: ClassVar[str] = "no"
    """What Esc answers, said on the keys line before the person chose to answer."""

    def __init__(self, *, on_purpose: bool = False) -> None:
        super().__init__()
        self.on_purpose = on_purpose

    def keys_line(self) -> str:
        """The keys that answer, shown once the dialog is in front on purpose."""
        raise NotImplementedError

    def keys_hint(self) -> Static:
        """The line saying which keys act now; it changes when the person chooses."""
        return Static(self._keys_text(), classes="dialog-keys", id="consent-keys", markup=False)

    def _keys_text(self) -> str:
        if self.on_purpose:
            return self.keys_line()
        return (
            "Keys typed now go to the prompt · F8 (or a click) to answer here · "
            f"Esc {self.esc_says()}"
        )

    @property
    def spoken(self) -> str:
        """The question and its keys, for the screen-reader mode's log."""
        keys = self._keys_text().replace(" · ", ", ")
        return f"{self.question_text()} Keys: {keys}."

    def question_text(self) -> str:
        """The question this dialog asks, in a sentence or two."""
        return "A question needs your answer."

    def esc_says(self) -> str:
        """What Esc answers here (``ESC_SAYS`` unless the question says otherwise)."""
        return self.ESC_SAYS

    def action_answer_here(self) -> None:
        """F8: the person chose to answer this question; its keys act from now on."""
        if not self.on_purpose:
            self.on_purpose = True
            self.query_one("#consent-keys", Static).update(self._keys_text())
            self.refresh_bindings()

    def on_click(self) -> None:
        self.action_answer_here()

    def on_key(self, event: events.Key) -> None:
        """A key that types text is text, unless it is an answer key the person chose to
        use (bound only on purpose: ``check_action``)."""
        if not (event.is_printable or event.key == "backspace"):
            return
        if event.key in self.active_bindings:
            return
        event.stop()
        event.prevent_default()
        if not type_into_prompt(self.app, event):
            self.app.bell()

    def on_paste(self, event: events.Paste) -> None:
        if not self.on_purpose:
            event.stop()
            type_into_prompt(self.app, event)
