"""A stored conversation replayed to the client for ``session/load``.

The history as the model saw it: the person's text as ``user_message_chunk``, the model's
answer and thoughts as chunks, each function call as a finished ``tool_call`` (failed
when its response carried an error).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from acp import (
    start_tool_call,
    update_agent_message_text,
    update_agent_thought_text,
    update_user_message_text,
)

from gemtui.acp.updates import Update, locations, tool_kind
from gemtui.wire import Content
from gemtui.wire.cancel_note import is_cancel_note

__all__ = ["replay"]


def replay(
    history: list[Content], root: Path, kind_of: Callable[[str], str]
) -> Iterator[Update | object]:
    """The updates that show ``history``; ``kind_of`` names a tool's kind (read, edit…)."""
    failed: dict[str, bool] = {}
    for content in history:
        for part in content.parts:
            fr = part.function_response
            if fr is not None and fr.id:
                failed[fr.id] = "error" in fr.response
    for content in history:
        if is_cancel_note(content):  # for the model; ACP has no mark for a cancelled prompt
            continue
        for part in content.parts:
            if part.function_call is not None:
                call = part.function_call
                call_id = call.id or f"replayed-{call.name}"
                yield start_tool_call(
                    call_id,
                    call.name,
                    kind=tool_kind(kind_of(call.name)),
                    status="failed" if failed.get(call_id) else "completed",
                    locations=locations(call.args, root),
                    raw_input=call.args,
                )
            elif part.text and content.role == "user":
                yield update_user_message_text(part.text)
            elif part.text and part.thought:
                yield update_agent_thought_text(part.text)
            elif part.text:
                yield update_agent_message_text(part.text)
