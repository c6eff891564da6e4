"""The prompt: a multi-line input with history, ``@path`` and slash-command completion.

Keys: Enter sends; Shift+Enter (where the terminal reports it) or Ctrl+J inserts a
newline; Up/Down walk the prompt history when the cursor is on the first/last line;
PageUp/PageDown and Ctrl+Home/Ctrl+End (Home/End in an empty prompt) scroll the
conversation. Ctrl+Z undoes and Ctrl+Shift+Z redoes; a terminal without the kitty
keyboard protocol sends Ctrl+Shift+Z as plain Ctrl+Z (one byte, 0x1a), so there the main
screen's Ctrl+Y redoes while there is something to redo. Tab accepts the highlighted
completion, Up/Down move through completions; Enter accepts it too unless the command
name (or its argument) is already whole, then it runs. Ctrl+V attaches the clipboard's
image, a pasted image path that file; Backspace at the start removes the last. ``/vim``.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from gemtui.tui.image_paste import ImageAttachment, pasted_image_path
from gemtui.tui.widgets.vim_keys import VimKeys

__all__ = ["PromptInput", "complete_path"]

_MAX_SUGGESTIONS = 12
_LAST_WORD = re.compile(r"(?:\\\s|\S)*$")
"""The word before the cursor; ``\\ `` (an escaped space) belongs to it, as in ``@path``."""


def _escape_path(path: str) -> str:
    """A path as an ``@`` reference: white space escaped, so the path stays one word."""
    return re.sub(r"(\s)", r"\\\1", path)


def _unescape_path(word: str) -> str:
    return re.sub(r"\\(\s)", r"\1", word)


def complete_path(workspace: Path, partial: str, extra_roots: tuple[Path, ...] = ()) -> list[str]:
    """Workspace entries matching ``partial`` (one folder listed, never a full walk); a
    folder of another workspace root (``--include-directories``) completes too."""
    folder, _, stem = partial.rpartition("/")
    base = (workspace / folder).resolve()
    roots = (workspace.resolve(), *(r.resolve() for r in extra_roots))
    if not any(base == root or root in base.parents for root in roots):
        return []
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    out: list[str] = []
    for entry in entries:
        if entry.name.startswith(".") and not stem.startswith("."):
            continue
        if not entry.name.startswith(stem):
            continue
        rel = f"{folder}/{entry.name}" if folder else entry.name
        out.append(rel + ("/" if entry.is_dir() else ""))
        if len(out) >= _MAX_SUGGESTIONS:
            break
    return out


class PromptInput(TextArea):
    """Where the person types; posts ``Submitted`` and ``Suggested`` messages."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 10;
    }
    """

    BINDINGS = [
        Binding("ctrl+j,shift+enter", "newline", "Newline", show=False),
        Binding("ctrl+shift+z,super+shift+z", "redo", "Redo", show=False),
        Binding("pageup", "scroll_transcript('page_up')", show=False),
        Binding("pagedown", "scroll_transcript('page_down')", show=False),
        Binding("ctrl+home", "scroll_transcript('scroll_home')", show=False),
        Binding("ctrl+end", "scroll_transcript('scroll_end')", show=False),
        Binding("ctrl+v", "paste_image", "Paste image", show=False),
    ]

    class Submitted(Message):
        """The person pressed Enter on a non-empty prompt (or slash command)."""

        def __init__(self, text: str, images: tuple[ImageAttachment, ...] = ()) -> None:
            super().__init__()
            self.text = text
            self.images = images
            """The images attached to it (sent after the text)."""

    class ImagesChanged(Message):
        """An image was attached or removed (``images`` holds them now)."""

    class ImagePasteRequested(Message):
        """Ctrl+V: read the clipboard's image."""

    class ImagePathPasted(Message):
        """A paste that is one path to an image file: attach it if the rules allow."""

        def __init__(self, path: str, pasted: str) -> None:
            super().__init__()
            self.path = path
            self.pasted = pasted
            """The paste as it came (typed in as text when the image is refused)."""

    class Suggested(Message):
        """Completions for the word at the cursor changed (empty: hide them)."""

        def __init__(self, items: list[tuple[str, str]], index: int) -> None:
            super().__init__()
            self.items = items
            """(completion, help) pairs."""
            self.index = index
            """The highlighted one."""

    class ScrollRequested(Message):
        """A scrolling key pressed in the prompt, meant for the conversation above it."""

        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action
            """``page_up``, ``page_down``, ``scroll_home`` or ``scroll_end``."""

    def __init__(
        self,
        *,
        workspace: Path | None = None,
        prompt_history: list[str] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(
            "",
            soft_wrap=True,
            tab_behavior="focus",
            compact=True,
            highlight_cursor_line=False,
            placeholder="Ask anything · Enter sends · Ctrl+J newline · / commands · @ files",
            name=name,
            id=id,
            classes=classes,
        )
        self.workspace = workspace
        """Root for ``@path`` completion (None: no file completion)."""
        self.prompt_history: list[str] = list(prompt_history or [])
        """Sent prompts, oldest first."""
        self.slash_commands: dict[str, str] = {}
        """Every slash command with its one-line help, for completion (set by the app)."""
        self.argument_choices: dict[str, list[str]] = {}
        """Completions for a slash command's argument, e.g. ``/theme`` → theme names."""
        self.extra_commands: dict[str, str] = {}
        """Custom commands (``/git:commit`` → help), completed after the built-in ones."""
        self.extra_roots: tuple[Path, ...] = ()
        """More workspace roots whose entries ``@`` completes (``/directory add``)."""
        self.shell_mode = False
        """``!`` on an empty prompt: every line sent runs in the shell until ``!`` again."""
        self._placeholder = str(self.placeholder)
        self._history_index: int | None = None
        self._draft = ""
        self._suggestions: list[tuple[str, str]] = []
        self._suggestion_index = 0
        self._picked = False
        """The person moved through the completions: Enter takes the highlighted one."""
        self._token_start: tuple[int, int] | None = None
        self.typed_at = 0.0
        """When the person last typed here (monotonic; 0 once Enter sent the prompt)."""
        self.images: list[ImageAttachment] = []
        """Images attached, shown as chips, sent with the prompt."""
        self.vim: VimKeys | None = None
        """Vim keys, while ``/vim`` has them on."""

    @property
    def can_redo(self) -> bool:
        """An undone edit waits to be brought back (Ctrl+Y redoes rather than asks)."""
        return bool(self.history.redo_stack)

    # -- keys ------------------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        # After sending, the person waits for the answer rather than types.
        self.typed_at = 0.0 if event.key == "enter" else time.monotonic()
        if self.vim is not None and self.vim.handle(event.key, event.character):
            event.stop()
            event.prevent_default()
            self._set_suggestions([] if event.key == "escape" else self._compute_suggestions())
            return
        if event.character == "!" and not self.text:
            event.stop()
            event.prevent_default()
            self.toggle_shell_mode()
            return
        if event.key in ("enter", "tab", "escape"):
            # Keys typed fast arrive before the Changed messages of the text before them:
            # decide against the text as it is now, never against stale completions.
            self._set_suggestions(self._compute_suggestions())
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            if self._suggestions and (self._picked or not self._complete_as_typed()):
                self.accept_suggestion()
            else:
                self._submit()
            return
        if event.key == "backspace" and self.images and self._at_start():
            event.stop()
            event.prevent_default()
            self.images.pop()
            self.post_message(self.ImagesChanged())
            return
        if event.key == "tab" and self._suggestions:
            event.stop()
            event.prevent_default()
            self.accept_suggestion()
            return
        if event.key == "escape" and self._suggestions:
            event.stop()
            event.prevent_default()
            self._set_suggestions([])
            return
        await super()._on_key(event)

    def _at_start(self) -> bool:
        return self.cursor_location == (0, 0) and self.selection.is_empty

    async def _on_paste(self, event: events.Paste) -> None:
        """A pasted path to an image file becomes an attachment (the screen checks it);
        other pastes go on to TextArea's handler (Textual calls it next, along the MRO)."""
        path = pasted_image_path(event.text)
        if path is None:
            return
        event.stop()
        event.prevent_default()
        self.post_message(self.ImagePathPasted(path, event.text))

    def action_paste_image(self) -> None:
        self.post_message(self.ImagePasteRequested())

    def attach(self, image: ImageAttachment) -> None:
        """Add an image to the prompt (a chip shows it)."""
        self.images.append(image)
        self.post_message(self.ImagesChanged())

    def give_back(self, text: str, images: tuple[ImageAttachment, ...]) -> None:
        """A prompt that could not be sent comes back whole: its text before what is
        typed now, its images before the ones attached since."""
        if text:
            self.insert(f"{text}\n" if self.text else text, (0, 0))
        self.images[:0] = images
        self.post_message(self.ImagesChanged())

    def _complete_as_typed(self) -> bool:
        """A whole command name, a whole (or no) argument: Enter runs the command as typed
        rather than completing it (``/copy`` copies; it never becomes ``/copy code``)."""
        row, col = self.cursor_location
        before = self.document.get_line(row)[:col]
        if row != 0 or not before.startswith("/") or "\n" in self.text:
            return False
        name, space, arg = before.partition(" ")
        if not space:
            return name.lower() in self.slash_commands or name.lower() in self.extra_commands
        return not arg or arg in self.argument_choices.get(name.lower(), [])

    def toggle_shell_mode(self) -> None:
        """Enter or leave shell mode; the border and placeholder say which."""
        self.shell_mode = not self.shell_mode
        self.set_class(self.shell_mode, "-shell")
        self.border_title = "shell mode (! leaves)" if self.shell_mode else None
        self.placeholder = (
            "Shell command · runs through the policy, no model call · ! on empty leaves"
            if self.shell_mode
            else self._placeholder
        )

    def _submit(self) -> None:
        text = self.text.strip()
        if not text:
            return
        if self.shell_mode and not text.startswith("!"):
            text = f"!{text}"
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_index = None
        self.clear()
        self._set_suggestions([])
        images, self.images = tuple(self.images), []
        if self.vim is not None:
            self.vim.set_mode("insert")  # the next prompt starts as typing
        if images:
            self.post_message(self.ImagesChanged())
        self.post_message(self.Submitted(text, images))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_scroll_transcript(self, action: str) -> None:
        self.post_message(self.ScrollRequested(action))

    def action_cursor_line_start(self, select: bool = False) -> None:
        """Home in an empty prompt has no line to move in: it scrolls the conversation."""
        if not self.text and not select:
            self.post_message(self.ScrollRequested("scroll_home"))
        else:
            super().action_cursor_line_start(select)

    def action_cursor_line_end(self, select: bool = False) -> None:
        if not self.text and not select:
            self.post_message(self.ScrollRequested("scroll_end"))
        else:
            super().action_cursor_line_end(select)

    def action_cursor_up(self, select: bool = False) -> None:
        self._set_suggestions(self._compute_suggestions())
        if self._suggestions and not select:
            self._move_suggestion(-1)
        elif not select and self.cursor_at_first_line and self.prompt_history:
            self._walk_history(-1)
        else:
            super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        self._set_suggestions(self._compute_suggestions())
        if self._suggestions and not select:
            self._move_suggestion(1)
        elif not select and self.cursor_at_last_line and self._history_index is not None:
            self._walk_history(1)
        else:
            super().action_cursor_down(select)

    def _walk_history(self, step: int) -> None:
        if self._history_index is None:
            self._draft = self.text
            index = len(self.prompt_history)
        else:
            index = self._history_index
        index = max(0, min(len(self.prompt_history), index + step))
        self._history_index = None if index == len(self.prompt_history) else index
        self.text = self._draft if self._history_index is None else self.prompt_history[index]
        self.move_cursor(self.document.end)

    # -- completion ---------------------------------------------------------------------------
    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._set_suggestions(self._compute_suggestions())

    def _compute_suggestions(self) -> list[tuple[str, str]]:
        row, col = self.cursor_location
        before = self.document.get_line(row)[:col]
        if row == 0 and before.startswith("/") and "\n" not in self.text:
            name, space, arg = before.partition(" ")
            if not space:
                self._token_start = (0, 0)
                commands = {**self.extra_commands, **self.slash_commands}
                return [(c, h) for c, h in commands.items() if c.startswith(name.lower())]
            choices = self.argument_choices.get(name.lower(), [])
            self._token_start = (0, len(name) + 1)
            return [(c, "") for c in choices if c.startswith(arg) and c != arg]
        word = _LAST_WORD.search(before)
        assert word is not None  # the pattern matches the empty string at the end
        if word.group().startswith("@") and self.workspace is not None:
            self._token_start = (row, word.start() + 1)
            partial = _unescape_path(word.group()[1:])
            found = complete_path(self.workspace, partial, self.extra_roots)
            return [(_escape_path(p), "") for p in found]
        self._token_start = None
        return []

    def _set_suggestions(self, items: list[tuple[str, str]]) -> None:
        if items == self._suggestions:
            return
        self._suggestions = items
        self._suggestion_index = 0
        self._picked = False
        self.post_message(self.Suggested(list(items), 0))

    def _move_suggestion(self, step: int) -> None:
        self._suggestion_index = (self._suggestion_index + step) % len(self._suggestions)
        self._picked = True
        self.post_message(self.Suggested(list(self._suggestions), self._suggestion_index))

    def accept_suggestion(self, index: int | None = None) -> None:
        """Replace the word at the cursor with the highlighted (or given) completion."""
        if not self._suggestions or self._token_start is None:
            return
        choice = self._suggestions[self._suggestion_index if index is None else index][0]
        is_folder = choice.endswith("/")
        self.replace(choice, self._token_start, self.cursor_location)
        if not is_folder and (choice.startswith("/") or self._token_start[1] > 0):
            self.insert(" ")
        self._set_suggestions(self._compute_suggestions() if is_folder else [])
