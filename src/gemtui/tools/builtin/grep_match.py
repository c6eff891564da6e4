"""The grep search's core, shared by the disk scan and the editor-buffer search: the query,
the files it reads, and the lines it keeps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct

from gemtui.tools.base import ToolError
from gemtui.tools.builtin._files import SNIFF_BYTES, read_regular
from gemtui.tools.offload import CancelToken
from gemtui.tools.regex import LinearPattern
from gemtui.tools.workspace import Workspace, glob_to_regex


class Match(Struct, frozen=True):
    """One matching line: its file, line number and text."""

    path: Path
    line_number: int
    line: str


class _Query(Struct, frozen=True):
    regex: LinearPattern
    exclude: LinearPattern | None
    include: str | None
    per_file: int | None
    total: int


def _include_matcher(include: str) -> LinearPattern:
    """ripgrep-style: a glob without '/' matches the file name at any depth."""
    pattern = include.strip().lstrip("/") if "/" in include else "**/" + include.strip()
    return glob_to_regex(pattern)


CHECK_EVERY_LINES = 2048
"""How many lines the scan matches between looks at its cancel token."""


def _text_files(
    query: _Query, ws: Workspace, base: Path, token: CancelToken
) -> Iterator[tuple[Path, str]]:
    """The searched files' text on disk, skipping ignored, binary and special files."""
    include = _include_matcher(query.include) if query.include else None
    files = [base] if not base.is_dir() else ws.walk(base)
    for path in files:
        token.check()
        rel = path.relative_to(base).as_posix() if path != base else path.name
        if include is not None and not include.match(rel):
            continue
        try:
            data = read_regular(path, rel)
        except (OSError, ToolError):
            continue  # too large, vanished, or not a regular file (a FIFO would block)
        if b"\x00" in data[:SNIFF_BYTES]:
            continue
        yield path, data.decode("utf-8", errors="replace")


def _match_lines(
    query: _Query, path: Path, text: str, out: list[Match], token: CancelToken | None
) -> bool:
    """Add ``text``'s matching lines to ``out``; True once the total limit is reached."""
    in_file = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if token is not None and number % CHECK_EVERY_LINES == 0:
            token.check()
        if not query.regex.search(line):
            continue
        if query.exclude is not None and query.exclude.search(line):
            continue
        out.append(Match(path, number, line))
        if len(out) >= query.total:
            return True
        in_file += 1
        if query.per_file is not None and in_file >= query.per_file:
            break
    return False
