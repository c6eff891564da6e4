"""grep_search over the files as a front end holds them (an editor's unsaved buffers).

The disk decides which files are searched (ignore files, binary and special files, the
include glob, exactly as the disk search); the front end says what each one holds. Past
``MAX_HELD_FILES`` the disk's text is searched, so a huge tree costs no more round trips.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from gemtui.tools.base import ToolError
from gemtui.tools.builtin._files import read_regular
from gemtui.tools.builtin.grep_match import Match, _match_lines, _Query, _text_files
from gemtui.tools.file_access import FileAccess
from gemtui.tools.offload import CancelToken, run_off_loop
from gemtui.tools.workspace import Workspace

__all__ = ["MAX_HELD_FILES", "held_search"]

MAX_HELD_FILES = 1000
"""Files one search reads through a front end (an editor's buffers); the rest from disk."""


async def held_search(
    files: FileAccess, query: _Query, ws: Workspace, base: Path
) -> tuple[list[Match], bool]:
    """The same scan over each file as the front end holds it (unsaved edits and all):
    the disk decides which files are searched, the editor what they say."""
    found = await run_off_loop(lambda token: [p for p, _ in _text_files(query, ws, base, token)])
    out: list[Match] = []
    for path in found[:MAX_HELD_FILES]:
        try:
            text = await files.read_text(path)
        except ToolError:
            text = None  # the editor could not say: the disk's text below
        if text is None:
            text = await run_off_loop(partial(_disk_text, path))
        if text is not None and _match_lines(query, path, text, out, None):
            return out, True
    rest = found[MAX_HELD_FILES:]

    def scan(token: CancelToken) -> bool:
        for path in rest:
            text = _disk_text(path)
            if text is not None and _match_lines(query, path, text, out, token):
                return True
        return False

    return out, await run_off_loop(scan)


def _disk_text(path: Path, _token: CancelToken | None = None) -> str | None:
    """A searched file's text on disk (None when it went away or changed kind)."""
    try:
        return read_regular(path, path.name).decode("utf-8", errors="replace")
    except (OSError, ToolError):
        return None
