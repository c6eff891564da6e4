"""What ``/rewind`` (and Esc Esc on an empty prompt) does once a choice is made: the
code through the checkpoints, the conversation as one published history change (the
store keeps the old one as an earlier epoch, nothing deleted)."""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.checkpointing import PromptPoint
    from gemtui.agent.session import Session
    from gemtui.checkpoints import CheckpointBook, RewindPlan
    from gemtui.tui.app_surface import AppSurface
    from gemtui.tui.screens.rewind import RewindChoice

__all__ = ["open_rewind", "plan_diff"]

_DIFF_LIMIT = 64_000
"""Bytes read of each side of a file for the preview (a huge file is never read whole)."""


def _head(path: Path, limit: int) -> tuple[bytes, int]:
    """At most ``limit`` bytes of a regular file (never through a link), and its size."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return b"", 0
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return b"", 0
        chunks: list[bytes] = []
        got = 0
        while got < limit and (chunk := os.read(fd, min(65536, limit - got))):
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks), st.st_size
    finally:
        os.close(fd)


def plan_diff(book: CheckpointBook, plan: RewindPlan, limit: int = _DIFF_LIMIT) -> str:
    """A unified diff from the files as they are to what the rewind would write; each
    side read up to ``limit`` bytes ("…truncated" says where it stopped)."""
    chunks: list[str] = []
    for root, change in plan.steps:
        shown = root.shown(change.path)
        now, now_size = _head(root.root / change.path, limit)
        then, then_size = b"", 0
        if change.blob and change.mode != "160000":
            then, then_size = book.repo.blob_head(change.blob, limit)
        if b"\0" in now + then:
            chunks.append(f"Binary file {shown} differs\n")
            continue
        chunks.extend(
            difflib.unified_diff(
                now.decode("utf-8", "replace").splitlines(keepends=True),
                then.decode("utf-8", "replace").splitlines(keepends=True),
                f"a/{shown}" if now_size else "/dev/null",
                f"b/{shown}" if change.status != "D" else "/dev/null",
            )
        )
        if chunks and not chunks[-1].endswith("\n"):
            chunks.append("\n")
        if now_size > len(now) or then_size > len(then):
            chunks.append(f"…truncated: {shown} is longer than the preview reads\n")
    return "".join(chunks)


def _hand_edits_screen() -> type:
    from gemtui.tui.screens.dialogs import ConfirmScreen

    class HandEditsScreen(ConfirmScreen):
        """Restore the hand edits too (y), keep them and rewind the rest (n), or cancel
        the whole rewind (Esc: None)."""

        def keys_line(self) -> str:
            return "y restore too · n keep them, rewind the rest · Esc cancel"

        def action_decline(self) -> None:
            self.dismiss(None)

    return HandEditsScreen


def open_rewind(app: AppSurface) -> None:
    """Open the rewind screen for the running session."""
    session = app.session
    if session is None:
        return
    if app.turn_running:
        app.notify("Wait for the turn to finish (or Esc) before rewinding.", severity="warning")
        return
    checkpoints = session.checkpoints
    if checkpoints is None:
        app.notify("Checkpoints are off ([checkpoints] enabled = false).", severity="warning")
        return
    from gemtui.agent.checkpointing import prompt_points, still_in_conversation
    from gemtui.checkpoints import plan_rewind
    from gemtui.tui.screens.rewind import RewindScreen, preview_text

    book = checkpoints.book
    points = still_in_conversation(prompt_points(book.all(), session.id), list(session.history))

    def preview(point: PromptPoint) -> str:
        plan = plan_rewind(book, point.checkpoint)
        return preview_text(plan, plan_diff(book, plan))

    def chosen(choice: RewindChoice | None) -> None:
        if choice is None:
            return
        by_hand = []
        if choice.mode != "conversation":
            by_hand = plan_rewind(book, choice.point.checkpoint).by_hand
        if not by_hand:
            _apply(app, session, book, choice)
            return

        def answered(yes: bool | None) -> None:
            if yes is None:  # Esc: the person backed out of the whole rewind
                app.notify("Rewind cancelled: nothing was changed.")
            else:  # n rewinds the rest and keeps the hand edits
                _apply(app, session, book, choice, keep_by_hand=not yes)

        app.push_screen(
            _hand_edits_screen()(
                f"{len(by_hand)} file(s) were changed by hand since; restore them too?",
                detail="\n".join(by_hand) + "\n\n(the rewind can be undone)",
                on_purpose=True,  # asked right after the person chose the point with Enter
            ),
            answered,
        )

    app.push_screen(RewindScreen(points, preview), chosen)


def _apply(
    app: AppSurface,
    session: Session,
    book: CheckpointBook,
    choice: RewindChoice,
    *,
    keep_by_hand: bool = False,
) -> None:
    from gemtui.agent.checkpointing import history_before_prompt
    from gemtui.checkpoints import rewind

    said: list[str] = []
    if choice.mode in ("code", "both"):
        result = rewind(
            book, choice.point.checkpoint, session=session.id, keep_by_hand=keep_by_hand
        )
        changed = len(result.report.restored) + len(result.report.removed)
        said.append(f"{changed} file(s) put back (undo: gemtui rewind {result.saved.id})")
        if result.kept:
            said.append(f"kept as you changed them: {', '.join(result.kept)}")
        if result.report.failed:
            said.append(f"not restored: {', '.join(result.report.failed)}")
        if result.plan.left:
            said.append(f"left as is (not saved): {', '.join(x.path for x in result.plan.left)}")
    if choice.mode in ("conversation", "both"):
        history = list(session.history)
        cut = history_before_prompt(history, choice.point.prompt)
        if cut is None:
            said.append("the prompt is no longer in the conversation")
        else:
            session.rewind_history(cut)
            transcript = app.main.transcript
            transcript.clear()
            transcript.replay(history[:cut], lambda name, args: name)
            app.main.prompt.text = choice.point.prompt
            said.append("conversation rewound; the prompt is back in the input")
    app.main.transcript.add_notice("Rewind: " + "; ".join(said) + ".")  # keeps the undo id
