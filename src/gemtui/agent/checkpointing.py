"""The session's checkpoints: one before every call that may change the workspace."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from gemtui.bus.bus import EventBus
from gemtui.bus.events import ErrorOccurred
from gemtui.config.paths import data_dir, log_dir
from gemtui.config.settings import CheckpointSettings
from gemtui.tools.base import Tool
from gemtui.tools.sandbox_places import HOME_SECRETS, home_places
from gemtui.wire import Content
from gemtui.wire.cancel_note import is_cancel_note

if TYPE_CHECKING:  # loaded with the first checkpoint (~10 ms the engine's start skips)
    from gemtui.checkpoints import Checkpoint, CheckpointBook

__all__ = [
    "PromptPoint",
    "SessionCheckpoints",
    "book_for",
    "history_before_prompt",
    "prompt_points",
    "still_in_conversation",
]

log = logging.getLogger(__name__)


def book_for(workspace: Path, settings: CheckpointSettings | None = None) -> CheckpointBook:
    """The checkpoint book of ``workspace`` under gemtui's data dir: the home secrets
    (``HOME_SECRETS``) are never copied into it, nor rewound, when a root holds a home."""
    from gemtui.checkpoints import CheckpointBook

    s = settings or CheckpointSettings()
    return CheckpointBook(
        data_dir(),
        workspace,
        max_file_size=s.max_file_size,
        keep=s.keep,
        keep_days=s.keep_days,
        own=(log_dir(), *home_places(HOME_SECRETS)),
    )


class SessionCheckpoints:
    """A ``ChangeGuard`` for the scheduler: records a checkpoint of every root a tool can
    write before a call runs, and the files it changed after. A failing checkpoint is
    logged and noted, never fatal: the approved call still runs."""

    def __init__(
        self,
        bus: EventBus,
        workspace: Path,
        settings: CheckpointSettings,
        session_id: str,
        roots: Callable[[], Sequence[Path]] = tuple,
    ) -> None:
        self._bus = bus
        self._workspace = workspace
        self._settings = settings
        self._roots = roots
        """The further roots (``--include-directories``, ``/directory add``) right now."""
        self.session_id = session_id
        self.prompt = ""
        """The text of the prompt in flight (set by the session before it runs)."""
        self._warned: set[str] = set()

    @cached_property
    def book(self) -> CheckpointBook:
        """The workspace's checkpoint book, opened at the first call that may change it."""
        return book_for(self._workspace, self._settings)

    async def before(self, tool: Tool, invocation: Any) -> object | None:
        try:
            point = await asyncio.to_thread(
                self.book.begin,
                session=self.session_id,
                prompt=self.prompt,
                tool=tool.name,
                roots=self._roots(),
            )
        except Exception as e:  # never stop an approved call: say so instead
            log.warning("no checkpoint before %s: %s", tool.name, e)
            self._note(f"No checkpoint was taken before {tool.name}: {e}")
            return None
        limit = self.book.max_file_size
        for root, state in point.states(self.book.workspace).items():
            shown = (p if root == self.book.workspace else str(root / p) for p in state.skipped)
            for path in shown:
                self._note(
                    f"{path} is over the checkpoint size cap ([checkpoints] max_file_size ="
                    f" {limit}): it is not in checkpoints and a rewind leaves it alone."
                )
            for path in state.unreadable:
                self._note(
                    f"{path if root == self.book.workspace else root / path} cannot be read:"
                    " it is not in checkpoints and a rewind leaves it alone."
                )
        return point

    async def after(self, token: object) -> None:
        from gemtui.checkpoints import Checkpoint

        if not isinstance(token, Checkpoint):
            return
        try:
            await asyncio.to_thread(self.book.finish, token)
        except Exception as e:
            log.warning("checkpoint %s not finished: %s", token.id, e)

    def _note(self, text: str) -> None:
        if text in self._warned:
            return
        self._warned.add(text)
        self._bus.emit(ErrorOccurred, message=text, kind="warning")


class PromptPoint(Struct, frozen=True):
    """A prompt of this session that changed files: rewinding to it restores the files
    as they were before its first checkpoint."""

    prompt: str
    checkpoint: str
    """The prompt's earliest checkpoint (the state before any of its calls ran)."""
    files: tuple[str, ...]


def prompt_points(points: list[Checkpoint], session: str) -> list[PromptPoint]:
    """This session's prompts with the files each changed, newest first (consecutive
    checkpoints of one prompt are one entry; a rewind's own checkpoint is not a prompt)."""
    ours = [p for p in reversed(points) if p.session == session and p.tool != "rewind"]
    groups: list[tuple[str, str, list[str]]] = []
    for point in ours:  # oldest first
        if groups and groups[-1][0] == point.prompt:
            files = groups[-1][2]
            files.extend(f for f in point.files if f not in files)
        else:
            groups.append((point.prompt, point.id, list(point.files)))
    return [PromptPoint(p, c, tuple(f)) for p, c, f in reversed(groups)]


def history_before_prompt(history: list[Content], prompt: str) -> int | None:
    """Where the history is cut to rewind the conversation to before ``prompt``: the index
    of the last user message carrying its text (None when it is not there)."""
    for index in range(len(history) - 1, -1, -1):
        content = history[index]
        if content.role != "user" or is_cancel_note(content):
            continue
        texts = [part.text for part in content.parts or [] if part.text]
        if any(t == prompt or prompt in t for t in texts):
            return index
    return None


def still_in_conversation(points: list[PromptPoint], history: list[Content]) -> list[PromptPoint]:
    """``points`` (newest first) without the prompts a conversation rewind took away.

    A rewind removes the newest prompts, so the leading run of points whose prompt is no
    longer in the history goes. A ``/compress`` removes the oldest ones instead: those
    stay behind the newest prompt still there (their code can still be rewound; so can
    any point with ``gemtui rewind``).
    """
    for index, point in enumerate(points):
        if history_before_prompt(history, point.prompt) is not None:
            return points[index:]
    return []
