"""The editor's file system as the file tools' ``FileAccess`` (``fs/*`` requests).

The tools resolve and check each path first; this only carries the read or write to the
client. A client answering "resource not found" means the file does not exist yet, so a
``write_file`` of a new file goes on instead of failing.
"""

from __future__ import annotations

from pathlib import Path

from acp import RequestError
from acp.interfaces import Client

from gemtui.tools.tool_error import ToolError

__all__ = ["ClientFiles"]

_NOT_FOUND = -32002


def _missing(exc: RequestError) -> bool:
    """Clients differ: the spec's code, or an internal error that says so in words."""
    if exc.code == _NOT_FOUND:
        return True
    words = f"{exc} {exc.data or ''}".lower()
    return "not found" in words or "no such file" in words or "enoent" in words


class ClientFiles:
    """Reads and writes text through the client for one session."""

    def __init__(self, client: Client, session_id: str, *, read: bool, write: bool) -> None:
        self._client = client
        self._session_id = session_id
        self.can_read = read
        self.can_write = write

    async def read_text(self, path: Path) -> str | None:
        if not self.can_read:
            return _disk_text(path)
        try:
            answer = await self._client.read_text_file(session_id=self._session_id, path=str(path))
        except RequestError as exc:
            if _missing(exc):
                return None
            raise ToolError(f"The editor could not read {path}: {exc}") from exc
        return answer.content

    async def write_text(self, path: Path, text: str) -> None:
        if not self.can_write:
            _disk_write(path, text)
            return
        try:
            await self._client.write_text_file(
                session_id=self._session_id, path=str(path), content=text
            )
        except RequestError as exc:
            raise ToolError(f"The editor could not write {path}: {exc}") from exc


def _disk_text(path: Path) -> str | None:
    from gemtui.tools.builtin.replace import read_existing

    return read_existing(path, str(path), lenient=True)[0]


def _disk_write(path: Path, text: str) -> None:
    """The tools' own careful write (regular files only, atomic replace)."""
    from gemtui.tools.builtin._files import write_regular

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_regular(path, text.encode("utf-8"), str(path))
    except OSError as exc:
        raise ToolError(f"Error writing to file {path}: {exc.strerror or exc}") from exc
