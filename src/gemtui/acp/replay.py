"""A stored conversation replayed to the client for ``session/load``.

The history as the model saw it: the person's text as ``user_message_chunk``, the model's
answer and thoughts as chunks, each function call as a finished ``tool_call`` (failed
when its response carried an error). A delegation's stored story follows its call, as it
came live: the subagent's calls (``parent/child`` ids, the parent named in ``_meta``),
and its words as the content of the call that started it, never as the agent's answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)

from gemtui.acp.updates import Update, locations, tool_kind
from gemtui.wire import Content
from gemtui.wire.cancel_note import is_cancel_note

__all__ = ["replay"]


def _failed(history: list[Content]) -> dict[str, bool]:
    """Whether each answered call's response carried an error, by call id."""
    failed: dict[str, bool] = {}
    for content in history:
        for part in content.parts:
            fr = part.function_response
            if fr is not None and fr.id:
                failed[fr.id] = "error" in fr.response
    return failed


def replay(
    history: list[Content],
    root: Path,
    kind_of: Callable[[str], str],
    children: dict[str, list[Content]] | None = None,
) -> Iterator[Update | object]:
    """The updates that show ``history``; ``kind_of`` names a tool's kind (read, edit…);
    ``children`` holds each delegation's stored story by the call that started it."""
    stories = children or {}
    failed = _failed(history)
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
                if call_id in stories:
                    yield from _story(call_id, stories, root, kind_of)
            elif part.text and content.role == "user":
                yield update_user_message_text(part.text)
            elif part.text and part.thought:
                yield update_agent_thought_text(part.text)
            elif part.text:
                yield update_agent_message_text(part.text)


def _story(
    parent: str,
    stories: dict[str, list[Content]],
    root: Path,
    kind_of: Callable[[str], str],
) -> Iterator[Update | object]:
    """One subagent's calls under ``parent`` (its own delegations' stories nested in
    turn), then its words as the parent call's content."""
    story = stories[parent]
    failed = _failed(story)
    meta = {"gemtui": {"parentToolCallId": parent}}
    words: list[str] = []
    for content in story:
        for part in content.parts:
            if part.function_call is not None:
                call = part.function_call
                own = call.id or f"replayed-{call.name}"
                call_id = f"{parent}/{own}"
                start = start_tool_call(
                    call_id,
                    call.name,
                    kind=tool_kind(kind_of(call.name)),
                    status="failed" if failed.get(own) else "completed",
                    locations=locations(call.args, root),
                    raw_input=call.args,
                )
                yield start.model_copy(update={"field_meta": meta})
                if call_id in stories and call_id != parent:
                    yield from _story(call_id, stories, root, kind_of)
            elif part.text and content.role == "model" and not part.thought:
                words.append(part.text)
    if words:
        yield update_tool_call(parent, content=[tool_content(text_block("".join(words)))])
