"""Waiting on messages instead of sleeping: a ``message_hook`` that records and wakes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.message import Message

from gemtui.tui.bridge import BusEvent


class Messages:
    """Every message the app posts; ``wait_for`` resolves when one matches."""

    def __init__(self) -> None:
        self.seen: list[Message] = []
        self._changed = asyncio.Event()

    def __call__(self, message: Message) -> None:
        self.seen.append(message)
        self._changed.set()

    async def wait_for(
        self, predicate: Callable[[Message], bool], *, after: int = 0, timeout: float = 15.0
    ) -> Message:
        async def find() -> Message:
            index = after
            while True:
                while index < len(self.seen):
                    if predicate(self.seen[index]):
                        return self.seen[index]
                    index += 1
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(find(), timeout)

    async def wait_event(self, kind: type, *, after: int = 0, **fields: Any) -> Any:
        """The first bus event of ``kind`` (with these field values) re-posted to the app."""

        def match(m: Message) -> bool:
            return (
                isinstance(m, BusEvent)
                and isinstance(m.event, kind)
                and all(getattr(m.event, k) == v for k, v in fields.items())
            )

        found = await self.wait_for(match, after=after)
        assert isinstance(found, BusEvent)
        return found.event

    async def wait_approvals(self, count: int, *, after: int = 0) -> None:
        """Until the approval queue holds ``count`` calls (the set-up most Pilot tests of
        approvals share: a prompt sent, its calls waiting)."""
        from gemtui.tui.widgets.approval_queue import ApprovalQueue

        await self.wait_for(
            lambda m: isinstance(m, ApprovalQueue.Changed) and m.count == count, after=after
        )


def replace_step(path: str, old: str = "world", new: str = "there") -> dict[str, Any]:
    """A mock model step that asks for one ``replace`` of ``old`` by ``new`` in ``path``."""
    args = {"file_path": path, "instruction": "i", "old_string": old, "new_string": new}
    return {"function_calls": [{"name": "replace", "args": args}]}


async def group_done(app: Any, group: str) -> None:
    """Wait for the workers of ``group`` that still run. Never pass Textual an empty
    list: it means "every worker", the bridge worker too, which runs for the app's whole
    life, so a worker that finished before the list was taken would hang the test."""
    running = [w for w in app.workers if w.group == group]
    if running:
        await app.workers.wait_for_complete(running)


async def turns_done(app: Any) -> None:
    """Wait for the turn workers."""
    await group_done(app, "turn")


async def engine_started(app: Any, seen: Messages) -> None:
    """Wait until the engine built in the background (``build_app``) has started.

    The worker is created after the first refresh, so it may not exist yet when a test
    starts: its first state message says it does; then wait for it to complete
    (``_session_built`` has run by then: ``call_from_thread`` waits for it).
    """
    from textual.worker import Worker

    if app.session is not None or app.controller.session_factory is None:
        return
    found = await seen.wait_for(
        lambda m: isinstance(m, Worker.StateChanged) and m.worker.group == "engine-start"
    )
    assert isinstance(found, Worker.StateChanged)
    await app.workers.wait_for_complete([found.worker])


def transcript_notices(app: Any) -> list[str]:
    """The notes shown in the conversation (lists and reports the person asked for)."""
    from gemtui.tui.widgets.transcript_blocks import NoticeBlock

    blocks = app.main.transcript._blocks.blocks
    return [b.text for b in blocks if isinstance(b, NoticeBlock)]


async def tables_measured(pilot: Any) -> None:
    """Wait until every table on screen has measured its rows: a DataTable sizes its
    columns when its own queue goes idle, so a picture taken before that shows the columns
    of the rows it had (a new, longer title cut short)."""
    from textual.widgets import DataTable

    for _ in range(100):
        await pilot.pause()
        pending = [
            t
            for t in pilot.app.screen.query(DataTable)
            if t._require_update_dimensions or t._new_rows or t._updated_cells
        ]
        if not pending:
            return
    raise AssertionError(f"tables never measured their rows: {pending}")
