"""Exports of one saved session: Markdown to read, JSON to process (the core wire format).

A delegation's subagent transcript goes with it: in Markdown under the call that started
it, in JSON as ``subagents`` by that call's id (never inside ``history``, which is the
conversation as its model saw it). The store already masks what it saves; an export
masks again, so a database written before a key was known (or by an older gemtui) cannot
leak it into a file.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gemtui.redact import redact, redact_data, redact_wire_content
from gemtui.store.records import iso
from gemtui.store.subagent_log import subagent_transcripts
from gemtui.wire.cancel_note import is_cancel_note

if TYPE_CHECKING:
    from gemtui.store.store import StoreCore
    from gemtui.store.subagent_log import SubagentTranscript
    from gemtui.wire import Content

__all__ = ["to_json", "to_markdown"]


def _require(store: StoreCore, session_id: str) -> Any:
    from gemtui.store.store import SessionNotFoundError

    info = store.get(session_id)
    if info is None:
        raise SessionNotFoundError(f"no saved session has the id {session_id!r}")
    return info


def to_json(store: StoreCore, session_id: str) -> str:
    info = _require(store, session_id)
    calls = [
        {**call, "args": redact_data(call["args"], keys=True)}
        for call in store.tool_calls(session_id)
    ]
    doc = {
        "session": info.to_json(),
        "history": [redact_wire_content(c.to_wire()) for c in store.load_history(session_id)],
        "tool_calls": calls,
        "usage": store.usage(session_id),
        "subagents": {
            call_id: {
                "agent": story.agent,
                "turns": story.turns,
                "tokens": story.tokens,
                "history": [redact_wire_content(c.to_wire()) for c in story.contents],
            }
            for call_id, story in subagent_transcripts(store, session_id).items()
        },
    }
    return json.dumps(redact_data(doc), ensure_ascii=False, indent=2) + "\n"


def to_markdown(store: StoreCore, session_id: str) -> str:
    info = _require(store, session_id)
    lines = [
        f"# {info.title or 'Untitled session'}",
        "",
        f"- id: `{info.id}`",
        f"- workspace: `{info.workspace}`",
        f"- model: {info.provider} / {info.model}",
        f"- created: {iso(info.created)} · updated: {iso(info.updated)}",
        f"- tokens: {info.tokens}",
        "",
    ]
    stories = subagent_transcripts(store, session_id)
    for content in store.load_history(session_id):
        lines += _content_lines(content, "Model", stories, "")
    return redact("\n".join(lines).rstrip()) + "\n"


def _content_lines(
    content: Content, model: str, stories: dict[str, SubagentTranscript], prefix: str
) -> list[str]:
    """One message as Markdown; a delegation's call is followed by its agent's story
    (``prefix``: how the story being written names its calls' stories, ``p1/``)."""
    if is_cancel_note(content):
        return ["_(cancelled before it was finished)_", ""]
    lines: list[str] = []
    inside = bool(prefix)
    for part in content.parts:
        if part.thought:
            continue
        if part.text:
            who = model if content.role != "user" else ("Task" if inside else "You")
            lines += [f"## {who}", "", part.text.rstrip(), ""]
        elif part.function_call is not None:
            call = part.function_call
            args = json.dumps(call.args or {}, ensure_ascii=False, indent=2)
            lines += [f"### Tool call: `{call.name}`", "", "```json", args, "```", ""]
            story = stories.get(prefix + (call.id or "")) if call.id else None
            if story is not None:
                lines += _story_lines(story, stories)
        elif part.function_response is not None:
            resp = part.function_response.response or {}
            body = resp.get("output", resp.get("error", resp))
            text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, indent=2)
            label = "error" if "error" in resp else "result"
            name = part.function_response.name
            lines += [f"### Tool {label}: `{name}`", "", "```", text, "```", ""]
    return lines


def _story_lines(story: SubagentTranscript, stories: dict[str, SubagentTranscript]) -> list[str]:
    """What the agent of one delegation was asked, said and did, as a quote under the
    call (a nested delegation's quote inside it)."""
    agent = story.agent or "subagent"
    tokens = f", {story.tokens:,} tokens" if story.tokens else ""
    turns = f"{story.turns} turn{'s' if story.turns != 1 else ''}"
    body = [f"**Agent `{agent}`** ({turns}{tokens})", ""]
    for content in story.contents:
        body += _content_lines(content, agent, stories, f"{story.parent_call}/")
    return [f"> {line}".rstrip() for line in "\n".join(body).split("\n")] + [""]
