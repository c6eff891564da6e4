"""Tool outputs too long for the model: the whole text kept in a file, a preview sent.

One rule for every tool (built-ins, MCP, web_fetch): past ``[tools] output_limit``
characters the model gets the head and the tail, and a line naming the file that holds
all of it, which ``read_file`` pages through with ``offset``/``limit``. The files live in
``<data>/tool-outputs/<session>/`` (folders 0700, files 0600) and are masked by
``gemtui.redact`` as they are written, like the session store.

``read_file`` may read outside the workspace only here, and only the files this store
wrote: a file is known by its device and inode, recorded when it was created, and opened
with ``O_NOFOLLOW`` and checked again on the open descriptor. A symlink, a hard link, a
``..`` path or a file swapped in later is a different inode and is refused.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import threading
import time
from pathlib import Path
from typing import TextIO

from gemtui.redact import StreamRedactor

__all__ = [
    "KEEP_DAYS",
    "MAX_SAVED_CHARS",
    "OutputStore",
    "SpillFile",
    "joined",
    "notice",
    "preview",
    "split_limit",
]

KEEP_DAYS = 7
"""Other sessions' output folders untouched this long are removed when a session first saves."""

MAX_SAVED_CHARS = 20_000_000
"""Characters one saved output keeps (read_file's own cap); a command printing for ever
stops filling the disk there."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def split_limit(limit: int) -> tuple[int, int]:
    """How many characters of the head and of the tail a preview within ``limit`` keeps."""
    head = max(limit, 0) // 2
    return head, max(limit, 0) - head


def notice(total: int, head: int, tail: int, path: Path | None, limit: int) -> str:
    """The line telling the model what it got and where the rest is."""
    what = (
        f"Output too long ({total:,} characters): only the first {head:,} and the last "
        f"{tail:,} are shown."
    )
    if path is None:
        return f"[{what} The whole output could not be saved.]"
    return (
        f"[{what} The whole output is saved in {path}. Read any part with read_file: "
        f'file_path="{path}", offset=<character to start at>, limit=<characters, at most '
        f"{limit:,}> (offset={head} continues where the head stops).]"
    )


def preview(text: str, limit: int, path: Path | None) -> str:
    """``text`` cut to its head and tail within ``limit``, the notice last."""
    head_n, tail_n = split_limit(limit)
    return joined(
        text[:head_n], text[len(text) - tail_n :] if tail_n else "", len(text), path, limit
    )


def joined(head: str, tail: str, total: int, path: Path | None, limit: int) -> str:
    """The preview from a head and a tail already cut (a stream keeps only those)."""
    left_out = total - len(head) - len(tail)
    return (
        f"{head}\n... [{left_out:,} characters left out] ...\n{tail}"
        f"\n{notice(total, len(head), len(tail), path, limit)}"
    )


class SpillFile:
    """An output file being written piece by piece (a running command); masked as it goes."""

    def __init__(self, path: Path, fh: TextIO) -> None:
        self.path = path
        self._fh = fh
        self._redactor = StreamRedactor()
        self.written = 0
        self.dropped = 0
        """Characters past ``MAX_SAVED_CHARS``, not saved."""

    def write(self, text: str) -> None:
        room = MAX_SAVED_CHARS - self.written
        if len(text) > room:
            self.dropped += len(text) - max(room, 0)
            text = text[: max(room, 0)]
        if text:
            self.written += len(text)
            self._fh.write(self._redactor.feed(text))

    def flush(self) -> None:
        """Put what is masked so far on disk (a reader may look while it is written)."""
        self._fh.flush()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.write(self._redactor.finish())
            if self.dropped:
                self._fh.write(f"\n[... {self.dropped:,} more characters were not saved]\n")
            self._fh.close()


class OutputStore:
    """One session's saved outputs: where they go, and which files are its own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._own: dict[str, tuple[int, int]] = {}
        """Real path → (device, inode) of every file this store created."""
        self._lock = threading.Lock()
        self._made = False

    @classmethod
    def for_session(cls, data_dir: Path, session_id: str) -> OutputStore:
        name = _UNSAFE.sub("_", session_id).strip("_") or "session"
        return cls(data_dir / "tool-outputs" / name[:80])

    def _make_folder(self) -> Path:
        first = not self._made
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.folder, 0o700)
        os.chmod(self.folder.parent, 0o700)
        if first:
            self._made = True
            self._prune()
        return Path(os.path.realpath(self.folder))

    def _prune(self) -> None:
        """Remove other sessions' folders untouched for ``KEEP_DAYS`` (never via a link)."""
        cutoff = time.time() - KEEP_DAYS * 86_400
        with os.scandir(self.folder.parent) as entries:
            for entry in entries:
                if entry.name == self.folder.name or not entry.is_dir(follow_symlinks=False):
                    continue
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        shutil.rmtree(entry.path)

    def create(self, call_id: str) -> SpillFile:
        """A new 0600 file named after the call (never an existing one: ``O_EXCL``)."""
        folder = self._make_folder()
        stem = _UNSAFE.sub("_", call_id).strip("_")[:64] or "call"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with self._lock:
            for n in range(1, 10_000):
                path = folder / (f"{stem}.txt" if n == 1 else f"{stem}-{n}.txt")
                try:
                    fd = os.open(path, flags, 0o600)
                except FileExistsError:
                    continue
                st = os.fstat(fd)
                self._own[os.fspath(path)] = (st.st_dev, st.st_ino)
                return SpillFile(path, open(fd, "w", encoding="utf-8", newline=""))
        raise OSError(f"no free file name for {stem} in {folder}")

    def save(self, call_id: str, text: str) -> Path:
        """Write ``text`` (masked) to a new file; its path."""
        spill = self.create(call_id)
        try:
            spill.write(text)
        finally:
            spill.close()
        return spill.path

    def find(self, file_path: str) -> Path | None:
        """The real path when ``file_path`` names one of this store's files, else None."""
        if not isinstance(file_path, str) or "\x00" in file_path:
            return None
        raw = os.path.expanduser(file_path.strip())
        if not os.path.isabs(raw):
            return None
        real = os.path.realpath(raw)
        known = self._own.get(real)
        if known is None:
            return None
        try:
            st = os.stat(real, follow_symlinks=False)
        except OSError:
            return None
        return Path(real) if (st.st_dev, st.st_ino) == known else None

    def read(self, path: Path) -> str:
        """The text of one of this store's files, checked on the open descriptor."""
        known = self._own.get(os.fspath(path))
        if known is None:
            raise PermissionError(f"{path} is not a saved tool output")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError as exc:  # ELOOP: a symlink took its place
            raise PermissionError(f"{path} is no longer the file gemtui wrote") from exc
        with open(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != known:
                raise PermissionError(f"{path} was replaced after gemtui wrote it")
            return fh.read().decode("utf-8", errors="replace")
