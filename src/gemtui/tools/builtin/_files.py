"""File helpers shared by the built-in tools: type sniffing, text windows, diffs.

Kept in one place so read_file and read_many_files agree on what is text, what is
media the model can take inline, and how long files are cut.
"""

from __future__ import annotations

import base64
import contextlib
import difflib
import mimetypes
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO, Literal

from msgspec import Struct

from gemtui.tools.base import ToolError
from gemtui.wire import Blob, Part

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_FILE_BYTES = 20 * 1024 * 1024
SNIFF_BYTES = 8192

IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".bmp": "image/bmp",
}
AUDIO_TYPES = {
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".aiff": "audio/aiff",
    ".aac": "audio/aac",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
}
MEDIA_TYPES = {**IMAGE_TYPES, **AUDIO_TYPES, ".pdf": "application/pdf"}
"""Extensions sent to the model as inline data (SVG is deliberately absent: it is text)."""

FileKind = Literal["text", "media", "binary"]


def media_type(path: Path) -> str | None:
    """The inline mime type for an image, audio file or PDF, else None."""
    return MEDIA_TYPES.get(path.suffix.lower())


def looks_binary(sample: bytes) -> bool:
    """NUL bytes, or mostly non-text bytes, in the first few KB mean binary."""
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the sample's end is still text.
        if exc.start >= len(sample) - 4:
            return False
    text_bytes = bytes(range(32, 127)) + b"\n\r\t\b\f"
    odd = sum(1 for b in sample if b not in text_bytes)
    return odd / len(sample) > 0.3


def classify(path: Path, shown: str | None = None) -> FileKind:
    if media_type(path) is not None:
        return "media"
    with open_regular(path, shown or str(path)) as fh:
        sample = fh.read(SNIFF_BYTES)
    return "binary" if looks_binary(sample) else "text"


def _mode_name(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def ensure_regular(mode: int, shown: str) -> None:
    """Refuse anything but a regular file: reading a FIFO or a device can block forever."""
    if stat.S_ISDIR(mode):
        raise ToolError(f"Path is a directory, not a file: {shown}")
    if not stat.S_ISREG(mode):
        raise ToolError(
            f"Path is {_mode_name(mode)}, not a regular file: {shown}. Tools only read and "
            "write regular files."
        )


def size_error(shown: str, size: int, what: str = "File size") -> ToolError:
    """The one wording of the 20 MB cap, for reads, edits and writes alike."""
    return ToolError(
        f"{what} exceeds the {MAX_FILE_BYTES // (1024 * 1024)}MB limit: {shown} "
        f"({size / (1024 * 1024):.2f}MB)"
    )


def stat_regular(path: Path, shown: str) -> os.stat_result | None:
    """The file's stat, None when it does not exist; refuses FIFOs, devices, sockets."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolError(f"Cannot access {shown}: {exc.strerror or exc}") from exc
    ensure_regular(st.st_mode, shown)
    return st


def open_regular(path: Path, shown: str) -> BinaryIO:
    """Open a regular file for reading without ever blocking in ``open``.

    The path is checked with ``stat`` first; the open itself uses ``O_NONBLOCK`` (so a
    FIFO swapped in after the check cannot block) and the descriptor is checked again
    with ``fstat`` before any byte is read.
    """
    if stat_regular(path, shown) is None:
        raise ToolError(f"File not found: {shown}")
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}") from exc
    try:
        ensure_regular(os.fstat(fd).st_mode, shown)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_regular(path: Path, shown: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """All bytes of a regular file of at most ``limit`` bytes (else a size error)."""
    with open_regular(path, shown) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise size_error(shown, size)
        data = fh.read(limit + 1)
    if len(data) > limit:  # it grew after the check
        raise size_error(shown, len(data))
    return data


def write_regular(path: Path, data: bytes, shown: str) -> None:
    """Write ``data`` to a regular file without ever leaving it half written.

    An existing file is replaced atomically: the bytes go to a temporary file beside it
    (given the old one's mode and, where allowed, owner) that is then renamed over it, so
    an exit in the middle of a write (Ctrl-C abandons the writing thread) leaves the old
    content intact. A new file is created exclusively. FIFOs and devices are refused.
    """
    st = stat_regular(path, shown)
    cloexec = getattr(os, "O_CLOEXEC", 0)
    if st is None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | cloexec, 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".gemtui-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        with contextlib.suppress(OSError):
            os.chown(tmp, st.st_uid, st.st_gid)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_readable_file(path: Path, shown: str) -> None:
    """Refuse missing paths, directories, special files and oversized files."""
    st = stat_regular(path, shown)
    if st is None:
        raise ToolError(f"File not found: {shown}")
    if st.st_size > MAX_FILE_BYTES:
        raise size_error(shown, st.st_size)


def media_part(path: Path, shown: str | None = None) -> Part:
    mime = media_type(path) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    data = base64.b64encode(read_regular(path, shown or str(path))).decode("ascii")
    return Part(inline_data=Blob(mime_type=mime, data=data))


def read_text(path: Path, shown: str | None = None) -> str:
    """UTF-8 text (BOM dropped, undecodable bytes replaced), newlines normalised."""
    text = read_regular(path, shown or str(path)).decode("utf-8-sig", errors="replace")
    return text.replace("\r\n", "\n")


class TextWindow(Struct, frozen=True):
    """A slice of a text file, with what was left out."""

    content: str
    first: int
    last: int
    total: int
    lines_cut: bool

    @property
    def truncated(self) -> bool:
        return self.lines_cut or self.first > 1 or self.last < self.total


def text_window(
    text: str, start_line: int | None = None, end_line: int | None = None
) -> TextWindow:
    """Lines ``start_line..end_line`` (1-based, inclusive), at most MAX_LINES of them."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    total = len(lines)
    first = start_line or 1
    if total and first > total:
        raise ToolError(
            f"start_line ({first}) is beyond the end of the file, which has {total} lines."
        )
    last = min(end_line if end_line is not None else total, total, first + MAX_LINES - 1)
    cut = False
    shown: list[str] = []
    for line in lines[first - 1 : last]:
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + "... [line truncated]"
            cut = True
        shown.append(line)
    if total == 0:
        first, last = 0, 0
    return TextWindow("\n".join(shown), first, last, total, cut)


def truncation_note(window: TextWindow, file_arg: str) -> str:
    """The note telling the model that it saw part of a file and how to read more."""
    lines = [
        "IMPORTANT: The file content has been truncated.",
        f"Status: Showing lines {window.first}-{window.last} of {window.total} total lines.",
    ]
    if window.lines_cut:
        lines.append(f"Some lines were longer than {MAX_LINE_CHARS} characters and were cut.")
    if window.last < window.total:
        lines.append(
            "Action: To read more of the file, use the 'start_line' and 'end_line' "
            f"parameters in a subsequent 'read_file' call (e.g. start_line={window.last + 1} "
            f"for '{file_arg}')."
        )
    else:
        lines.append(
            "Action: To read other parts of the file, use the 'start_line' and 'end_line' "
            "parameters in a subsequent 'read_file' call."
        )
    return "\n".join(lines)


def unified_diff(original: str, proposed: str, rel: str) -> str:
    """A unified diff labelled ``a/rel`` and ``b/rel``, as the approval view shows it."""
    out: list[str] = []
    for line in difflib.unified_diff(
        original.splitlines(keepends=True),
        proposed.splitlines(keepends=True),
        fromfile=f"a/{rel}",
        tofile=f"b/{rel}",
    ):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
