"""The images attached to the prompt, one chip each, on the line above it."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from gemtui.tui.image_paste import ImageAttachment

__all__ = ["AttachmentChips"]


class AttachmentChips(Static):
    """Name and size of each image the next prompt carries; hidden when there is none."""

    DEFAULT_CSS = """
    AttachmentChips {
        height: auto;
        display: none;
        padding: 0 1;
    }
    AttachmentChips.-visible {
        display: block;
    }
    """

    def show_images(self, images: list[ImageAttachment]) -> None:
        """Draw a chip per image, and the key that removes them."""
        self.set_class(bool(images), "-visible")
        pieces: list[str | tuple[str, str]] = []
        for image in images:
            pieces += [(f" ▣ {image.label} ", "reverse $accent"), " "]
        if images:
            pieces.append(("⌫ at the start of the prompt removes the last", "$text-muted"))
        self.update(Content.assemble(*pieces))
