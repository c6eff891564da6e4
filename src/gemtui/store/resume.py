"""Reopening a saved session: the one path headless ``--resume`` and the TUI share.

A saved history can end in the middle of a tool call: the process was killed while the
tool ran, so the model's functionCall is stored and its functionResponse never came.
Every API rejects a call without its answer, so loading answers each such call with an
error saying it was interrupted. The recorder then stores that answer with the session's
next write, so the saved history becomes whole again.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from gemtui.errors import FatalInputError
from gemtui.store.records import SessionInfo
from gemtui.store.store import SessionNotFoundError, StoreCore
from gemtui.wire import Content, FunctionCall, Part

__all__ = [
    "INTERRUPTED_MESSAGE",
    "ResumeMeta",
    "answer_interrupted_calls",
    "open_session_for_resume",
]

INTERRUPTED_MESSAGE = (
    "This call was interrupted before it finished: gemtui stopped while it ran, so its "
    "result is unknown. Check its effects before relying on them or running it again."
)


@dataclass(frozen=True, slots=True)
class ResumeMeta:
    """What the caller shows about the resumed session."""

    info: SessionInfo
    forked_from: str | None = None
    """Set when an imported (read-only) session was copied into a new one to continue."""


def open_session_for_resume(
    store: StoreCore, ref: str | None, *, workspace: Path | str | None = None
) -> tuple[str, list[Content], ResumeMeta]:
    """``(session_id, history, meta)`` for ``ref`` (an id, a prefix or ``latest``).

    ``latest`` means the newest session of ``workspace`` when one is given. An imported
    session stays read-only: resuming continues a fork of it. Raises FatalInputError
    (exit 42) with a clear message when nothing matches.
    """
    try:
        info = store.resolve(ref, workspace=str(workspace) if workspace else None)
    except SessionNotFoundError as exc:
        raise FatalInputError(
            f"cannot resume: {exc}. `gemtui sessions list` shows the saved sessions."
        ) from exc
    forked_from = None
    if info.imported:
        forked_from = info.id
        new_id = store.fork(info.id)
        forked = store.get(new_id)
        assert forked is not None
        info = forked
    history = answer_interrupted_calls(store.load_history(info.id))
    return info.id, history, ResumeMeta(info, forked_from)


def _with_ids(content: Content, answers: Content | None) -> tuple[Content, list[FunctionCall]]:
    """The model turn with every call given an id.

    A call saved before the scheduler named it takes the id of an unclaimed answer with
    its name (the answer was saved after); failing that, a new one.
    """
    known = {p.function_call.id for p in content.parts if p.function_call and p.function_call.id}
    spare = [
        p.function_response
        for p in (answers.parts if answers is not None else [])
        if p.function_response is not None and p.function_response.id not in known
    ]
    calls: list[FunctionCall] = []
    parts: list[Part] = []
    for part in content.parts:
        call = part.function_call
        if call is not None and not call.id:
            match = next((r for r in spare if r.name == call.name), None)
            if match is not None:
                spare.remove(match)
            new_id = match.id if match is not None and match.id else None
            new_id = new_id or f"{call.name}-{uuid.uuid4().hex[:12]}"
            call = call.model_copy(update={"id": new_id})
            part = part.model_copy(update={"function_call": call})
        if call is not None:
            calls.append(call)
        parts.append(part)
    return Content(role=content.role, parts=parts), calls


def answer_interrupted_calls(history: list[Content]) -> list[Content]:
    """Give every functionCall left without a functionResponse one saying it was interrupted.

    Answers go into the user turn right after the model's (where the scheduler puts them),
    or into a new one there when the history has none. A whole history comes back as the
    same list.
    """
    from gemtui.scheduler.execution import error_parts

    out: list[Content] = []
    changed = False
    i = 0
    while i < len(history):
        content = history[i]
        i += 1
        if content.role != "model" or not any(p.function_call for p in content.parts):
            out.append(content)
            continue
        nxt = history[i] if i < len(history) else None
        answers = nxt if nxt is not None and any(p.function_response for p in nxt.parts) else None
        fixed, calls = _with_ids(content, answers)
        answered = (
            {p.function_response.id for p in answers.parts if p.function_response}
            if answers
            else set()
        )
        missing = [c for c in calls if c.id not in answered]
        if not missing and fixed == content:
            out.append(content)
            continue
        changed = True
        added = [p for c in missing for p in error_parts(c.id or "", c.name, INTERRUPTED_MESSAGE)]
        out.append(fixed)
        if answers is not None:
            out.append(Content(role="user", parts=[*answers.parts, *added]))
            i += 1
        else:
            out.append(Content(role="user", parts=added))
    return out if changed else history
