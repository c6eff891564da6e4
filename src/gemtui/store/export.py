"""Exports of one saved session: Markdown to read, JSON to process (the core wire format).

The store already masks what it saves; an export masks again, so a database written
before a key was known (or by an older gemtui) cannot leak it into a file.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gemtui.redact import redact, redact_data, redact_wire_content
from gemtui.store.records import iso

if TYPE_CHECKING:
    from gemtui.store.store import StoreCore

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
    for content in store.load_history(session_id):
        for part in content.parts:
            if part.thought:
                continue
            if part.text:
                who = "You" if content.role == "user" else "Model"
                lines += [f"## {who}", "", part.text.rstrip(), ""]
            elif part.function_call is not None:
                args = json.dumps(part.function_call.args or {}, ensure_ascii=False, indent=2)
                lines += [
                    f"### Tool call: `{part.function_call.name}`",
                    "",
                    "```json",
                    args,
                    "```",
                    "",
                ]
            elif part.function_response is not None:
                resp = part.function_response.response or {}
                body = resp.get("output", resp.get("error", resp))
                text = (
                    body
                    if isinstance(body, str)
                    else json.dumps(body, ensure_ascii=False, indent=2)
                )
                label = "error" if "error" in resp else "result"
                lines += [
                    f"### Tool {label}: `{part.function_response.name}`",
                    "",
                    "```",
                    text,
                    "```",
                    "",
                ]
    return redact("\n".join(lines).rstrip()) + "\n"
