"""What the main screen does for the prompt beyond sending text: the external editor
(Ctrl+G) and images (Ctrl+V, a pasted path, the chips, sending them or saying why not).

A mixin of ``MainScreen`` (its handlers are found by name along the class's MRO), kept
apart so the screen stays one screenful. Nothing typed is ever lost: an image refused,
or a prompt with images that cannot go now, comes back to the prompt whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from gemtui.tui.image_paste import ImageAttachment, load_image, read_clipboard_image
from gemtui.tui.widgets.prompt_input import PromptInput
from gemtui.tui.widgets.vim_keys import VimModeChanged, switch_vim

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget

    from gemtui.agent.session import Session
    from gemtui.tui.widgets.status_line import StatusLine
    from gemtui.tui.widgets.transcript import Transcript

__all__ = ["PromptExtras"]

_W = TypeVar("_W", bound="Widget")


class _Screen(Protocol):
    """What the mixin uses of ``MainScreen`` and its app, named here rather than
    imported: the screen imports this module, and the app imports the screen."""

    @property
    def transcript(self) -> Transcript: ...
    @property
    def prompt(self) -> PromptInput: ...
    @property
    def status(self) -> StatusLine: ...
    @property
    def app(self) -> App[Any]: ...
    def query_one(self, selector: str, expect_type: type[_W]) -> _W: ...
    def run_worker(
        self, work: Callable[[], None], *, thread: bool, group: str, name: str
    ) -> object: ...


class _Controller(Protocol):
    compressing: bool


class _App(Protocol):
    session: Session | None
    turn_running: bool
    controller: _Controller

    def run_turn(self, text: str, media: list[Any] | None = None) -> object: ...


class PromptExtras:
    """The main screen's prompt handlers for the editor and images."""

    @property
    def _screen(self) -> _Screen:
        return cast("_Screen", self)

    def _notice(self, text: str, severity: str = "warning") -> None:
        self._screen.transcript.add_notice(text, severity)

    def action_open_tool_output(self) -> None:
        """Ctrl+G: the prompt in ``$EDITOR``; an empty prompt, the last saved whole output
        in ``$PAGER`` (less): megabytes are the pager's job, not the transcript's."""
        from gemtui.tui.pager import open_in_pager

        screen = self._screen
        path = screen.transcript.last_output_file()
        if screen.prompt.text or path is None:
            self.edit_prompt_externally()
            return
        open_in_pager(screen.app, path)

    # -- vim keys ----------------------------------------------------------------------------
    def on_mount(self) -> None:
        """Vim keys from the start when ``[ui] vim_mode`` says so (Textual calls this
        beside ``MainScreen.on_mount``: handlers run for each class along the MRO)."""
        if getattr(getattr(self._screen.app, "ui", None), "vim_mode", False):
            prompt = self._screen.prompt
            prompt.vim = switch_vim(prompt, True)

    def on_vim_mode_changed(self, event: VimModeChanged) -> None:
        self._screen.status.vim = event.mode

    # -- Ctrl+G ------------------------------------------------------------------------------
    def edit_prompt_externally(self) -> None:
        """The prompt in the person's editor; what it wrote comes back as one undoable
        edit. When the editor fails the prompt keeps its text and a line says why."""
        from gemtui.tui.external_editor import run_editor_for

        screen = self._screen
        prompt = screen.prompt
        outcome = run_editor_for(screen.app, prompt.text)
        if outcome.text is None:
            self._notice(f"The prompt is unchanged: {outcome.problem}.")
            return
        prompt.replace(outcome.text, (0, 0), prompt.document.end)
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    # -- images ------------------------------------------------------------------------------
    def on_prompt_input_images_changed(self, event: PromptInput.ImagesChanged) -> None:
        from gemtui.tui.widgets.attachment_chips import AttachmentChips

        screen = self._screen
        screen.query_one("#chips", AttachmentChips).show_images(screen.prompt.images)

    def on_prompt_input_image_paste_requested(self, event: PromptInput.ImagePasteRequested) -> None:
        """Ctrl+V: the clipboard tool runs in a thread (a hung X server cannot freeze
        the screen); its image, or why there is none, comes back on the screen's loop."""
        screen = self._screen
        search_path = os.environ.get("PATH")

        def read() -> None:
            found = read_clipboard_image(search_path)
            screen.app.call_from_thread(self._clipboard_read, found)

        screen.run_worker(read, thread=True, group="image-paste", name="clipboard image")

    def _clipboard_read(self, found: ImageAttachment | str) -> None:
        prompt = self._screen.prompt
        if isinstance(found, ImageAttachment):
            prompt.attach(found)
            return
        self._notice(f"No image attached: {found}.")
        if self._screen.app.clipboard:  # text copied inside gemtui still pastes
            prompt.action_paste()

    def on_prompt_input_image_path_pasted(self, event: PromptInput.ImagePathPasted) -> None:
        """A pasted image path, by the rules of an ``@file`` read; refused, the paste is
        typed in as text, as it would have been."""
        from gemtui.tools.base import ToolError

        screen = self._screen
        prompt = screen.prompt
        app = cast("_App", screen.app)
        session = app.session
        if session is None:
            found: ImageAttachment | str = "gemtui is still starting"
        else:
            workspace = session.workspace
            try:
                path = workspace.resolve_visible(event.path, reading=True)
            except ToolError as exc:
                found = f"{event.path}: {exc}"
            else:
                found = load_image(path, workspace.relative(path))
        if isinstance(found, ImageAttachment):
            prompt.attach(found)
            return
        self._notice(f"Image not attached (pasted as text): {found}.")
        prompt.insert(event.pasted)

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        """A prompt with images goes here, to the model with its images as inline data,
        when the model takes images and nothing runs; else it all comes back."""
        screen = self._screen
        if not event.images:
            return  # the app sends text
        if event.text.startswith(("/", "!")):  # a command or a shell line runs as ever;
            screen.prompt.give_back("", event.images)  # the images wait for a prompt
            return
        event.stop()
        app = cast("_App", screen.app)
        session = app.session
        why = ""
        if session is None or app.turn_running or app.controller.compressing:
            why = "images go only when nothing runs: press Enter again when the turn ends"
        elif not session.chat_generator.capabilities.images:
            why = (
                f"{session.provider.name}:{session.model} is not known to take images"
                " (only Gemini, Anthropic and OpenAI's own API are; OpenAI-compatible"
                " servers and text-tools models are refused). Remove the images"
                " (⌫ at the start of the prompt) to send the text alone"
            )
        if why:
            screen.prompt.give_back(event.text, event.images)
            self._notice(f"Not sent: {why}.")
            return
        app.turn_running = True  # now, not in the worker: a second prompt must queue
        app.run_turn(event.text, [image.part() for image in event.images])
