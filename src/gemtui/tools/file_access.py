"""Where file tools read and write text when a front end holds the files (an editor).

By default the tools use the disk. A front end that owns open buffers (an ACP client such
as Zed) hands the session a ``FileAccess``: ``read_file`` then reads what the person sees
in the editor, unsaved changes included, and edits land in the editor's buffer with its
undo. The tools resolve every path against the workspace (bounds, ignore files) before
they ask, so a front end only ever sees paths the tools already accepted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

__all__ = ["FileAccess"]


class FileAccess(Protocol):
    """Text files as a front end holds them. Paths are absolute and already checked."""

    async def read_text(self, path: Path) -> str | None:
        """The file's text, or None when it does not exist (a new file)."""
        ...

    async def write_text(self, path: Path, text: str) -> None:
        """Replace the file's text (creating it); raise ``ToolError`` to fail the call."""
        ...
