"""Images in the prompt: from the clipboard, or a pasted path to an image file.

Terminals paste text only, so an image on the clipboard is read with the platform's tool
(``wl-paste`` on Wayland, ``xclip`` on X11, ``pngpaste`` on macOS), the first one
installed; when none is, the line names all three. A pasted path is taken by the same
rules as an ``@file`` read (inside a workspace root, not hidden by the ignore files, a
regular file): the caller resolves it with the session's workspace. Either way the bytes
must be a PNG, JPEG, GIF or WebP image of at most ``MAX_IMAGE_BYTES``; they go to the
model as inline data (base64) after the prompt's text.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.wire import Part

__all__ = [
    "CLIPBOARD_TOOLS",
    "MAX_IMAGE_BYTES",
    "ImageAttachment",
    "checked_image",
    "image_type",
    "load_image",
    "pasted_image_path",
    "read_clipboard_image",
]

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Gemini's limit for inline data in one request; larger images are refused."""

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
"""What a pasted path must end with to be taken as an image."""

CLIPBOARD_TOOLS: tuple[tuple[str, ...], ...] = (
    ("wl-paste", "--no-newline", "--type", "image/png"),
    ("xclip", "-selection", "clipboard", "-t", "image/png", "-o"),
    ("pngpaste", "-"),
)
"""Commands that print the clipboard's image, tried in order (the first installed runs)."""

_CLIPBOARD_SECONDS = 10.0
"""A clipboard tool that hangs (a dead X server) must not hold the prompt for ever."""


def image_type(data: bytes) -> str | None:
    """The MIME type the bytes really are (their magic number), whatever the name says."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KB"
    return f"{count / 1024 / 1024:.1f} MB"


def _too_big(name: str, count: int) -> str:
    limit = MAX_IMAGE_BYTES // (1024 * 1024)
    return f"{name} is {count:,} bytes, over the {limit} MB limit for images"


@dataclass(frozen=True)
class ImageAttachment:
    """One image waiting in the prompt (shown as a chip) until the prompt is sent."""

    name: str
    """What the chip calls it: the file's name, or ``clipboard.png``."""
    mime_type: str
    data: bytes

    @property
    def label(self) -> str:
        """The chip's text: name and size."""
        return f"{self.name} · {_size(len(self.data))}"

    def part(self) -> Part:
        """The image as inline data, for the model."""
        from gemtui.wire import Blob, Part  # here: pydantic is not for the first frame

        encoded = base64.b64encode(self.data).decode("ascii")
        return Part(inline_data=Blob(mime_type=self.mime_type, data=encoded))


def checked_image(name: str, data: bytes) -> ImageAttachment | str:
    """The bytes as an attachment, or why they cannot be one."""
    if len(data) > MAX_IMAGE_BYTES:
        return _too_big(name, len(data))
    mime = image_type(data)
    if mime is None:
        return f"{name} is not a PNG, JPEG, GIF or WebP image"
    return ImageAttachment(name, mime, data)


def read_clipboard_image(path: str | None = None) -> ImageAttachment | str:
    """The clipboard's image, or a sentence saying why there is none (``path``: where
    to look for the tools, as ``$PATH``)."""
    for command in CLIPBOARD_TOOLS:
        program = shutil.which(command[0], path=path)
        if program is None:
            continue
        try:
            done = subprocess.run(
                [program, *command[1:]],
                capture_output=True,
                timeout=_CLIPBOARD_SECONDS,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{command[0]} could not read the clipboard: {exc}"
        if done.returncode != 0 or not done.stdout:
            return f"the clipboard holds no image ({command[0]} found none)"
        return checked_image("clipboard.png", done.stdout)
    names = ", ".join(command[0] for command in CLIPBOARD_TOOLS)
    return f"no clipboard tool to read an image with: none of {names} is installed"


_QUOTED = re.compile(r"""^(['"])(.*)\1$""")


def pasted_image_path(text: str) -> str | None:
    """The path when a paste is one path to an image file (as a terminal pastes a file
    dropped on it: maybe quoted, ``\\ `` escaped or a ``file://`` URI); else None."""
    raw = text.strip()
    if not raw or "\n" in raw:
        return None
    quoted = _QUOTED.match(raw)
    raw = quoted.group(2) if quoted else re.sub(r"\\(.)", r"\1", raw)
    if raw.startswith("file://"):
        from urllib.parse import unquote, urlparse

        raw = unquote(urlparse(raw).path)
    if not raw.lower().endswith(IMAGE_SUFFIXES):
        return None
    if " " in raw and not (quoted or "\\ " in text or text.strip().startswith("file://")):
        return None  # words with spaces between them are a sentence, not a path
    return raw


def load_image(path: Path, shown: str) -> ImageAttachment | str:
    """The image file at ``path`` (already resolved by the workspace's rules)."""
    from gemtui.tools.base import ToolError
    from gemtui.tools.builtin._files import read_regular

    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"{shown}: {exc.strerror or exc}"
    if size > MAX_IMAGE_BYTES:
        return _too_big(shown, size)
    try:
        data = read_regular(path, shown, limit=MAX_IMAGE_BYTES)
    except ToolError as exc:
        return str(exc)
    return checked_image(Path(shown).name, data)
