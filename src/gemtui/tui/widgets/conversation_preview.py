"""A read-only conversation that reads like the transcript, for the session browser.

The same marks as the transcript: the person's prompt behind a bar, the model's answer
as rendered Markdown in the theme's styles, each tool call as a one-line card (state,
tool, its key argument, the rest folded) — never raw JSON of arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from gemtui.redact import redact
from gemtui.tui.widgets.markdown_look import (
    MARKDOWN_CSS,
    MARKDOWN_STYLES,
    ThemedMarkdown,
    markdown_theme,
)
from gemtui.tui.widgets.tool_summary import split_arguments
from gemtui.tui.widgets.transcript_blocks import UserBlock
from gemtui.wire.attachments import typed_text
from gemtui.wire.cancel_note import is_cancel_note

if TYPE_CHECKING:
    from gemtui.wire import Content

__all__ = ["ConversationPreview", "conversation_renderable"]

_STYLE_NAMES = ("user-bar", "user", "muted", "tool-name", "success", "error")


def conversation_renderable(
    history: list[Content], style: Callable[[str], Style], code_theme: str = "monokai"
) -> RenderableType:
    """The messages of ``history`` drawn as the transcript draws them."""
    theme = markdown_theme(style)
    failed = {
        p.function_response.id
        for c in history
        for p in c.parts
        if p.function_response is not None and "error" in p.function_response.response
    }
    items: list[RenderableType] = []
    prompt: Text | None = None
    for content in history:
        text = typed_text(content).strip()
        if is_cancel_note(content):  # the prompt before it was cancelled
            if prompt is not None:
                prompt.append(UserBlock.CANCELLED, style=style("muted"))
            continue
        if content.role == "user":
            if text:
                prompt = Text()
                prompt.append("▌ ", style=style("user-bar"))
                prompt.append(redact(text), style=style("user"))
                items.append(prompt)
            continue
        if text:
            items.append(ThemedMarkdown(redact(text), theme, code_theme))
        for part in content.parts:
            call = part.function_call
            if call is None:
                continue
            bad = call.id in failed
            card = Text()
            card.append("✗ " if bad else "✓ ", style=style("error" if bad else "success"))
            card.append(call.name, style=style("tool-name"))
            key, rest = split_arguments(dict(call.args))
            if key:
                card.append(f"  {redact(key)}")
            if rest:
                card.append(f"  +{len(rest)} arg{'s' if len(rest) != 1 else ''}", style("muted"))
            items.append(card)
    spaced: list[RenderableType] = []
    for item in items:
        if spaced:
            spaced.append(Text(""))
        spaced.append(item)
    return Group(*spaced)


class ConversationPreview(Widget):
    """The first messages of a saved session, drawn like the transcript."""

    COMPONENT_CLASSES = {f"preview--{n}" for n in (*_STYLE_NAMES, *MARKDOWN_STYLES)}

    DEFAULT_CSS = (
        """
    ConversationPreview {
        height: auto;
        & > .preview--user-bar { color: $primary; }
        & > .preview--user { text-style: bold; }
        & > .preview--muted { color: $text-muted; }
        & > .preview--tool-name { text-style: bold; }
        & > .preview--success { color: $success; }
        & > .preview--error { color: $error; }
    """
        + MARKDOWN_CSS.format(p="preview")
        + "}"
    )

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.history: list[Content] = []

    def show(self, history: list[Content]) -> None:
        self.history = history
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        dark = self.app.current_theme.dark
        return conversation_renderable(
            self.history,
            lambda name: self.get_component_rich_style(f"preview--{name}"),
            "monokai" if dark else "friendly",
        )
