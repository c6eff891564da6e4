"""Plain records the store hands out, and the text of a message for search and preview."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gemtui.wire import Content
from gemtui.wire.cancel_note import is_cancel_note

__all__ = [
    "FORK_MARK",
    "HIT_END",
    "HIT_START",
    "SearchHit",
    "SessionInfo",
    "SessionMatch",
    "content_text",
    "iso",
]

HIT_START = "\x02"
HIT_END = "\x03"
"""FTS5 snippet markers: control characters never typed in a prompt."""

FORK_MARK = "⎇ "
"""Put before a fork's title in lists: a fork reads like its source otherwise."""

_TOOL_TEXT_LIMIT = 4000


def iso(ts: float) -> str:
    """ISO 8601 in UTC, the form ``sessions list --json`` promises."""
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def content_text(content: Content) -> str:
    """What was said in a message, for full-text search: text, calls and tool results.

    Thoughts are left out: they are the model's scratch work, not the conversation.
    """
    out: list[str] = []
    for part in content.parts:
        if part.text and not part.thought:
            out.append(part.text)
        elif part.function_call is not None:
            args = json.dumps(part.function_call.args or {}, ensure_ascii=False)
            out.append(f"{part.function_call.name} {args[:_TOOL_TEXT_LIMIT]}")
        elif part.function_response is not None:
            resp: dict[str, Any] = part.function_response.response or {}
            value = resp.get("output", resp.get("error", resp))
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            out.append(text[:_TOOL_TEXT_LIMIT])
    return "\n".join(out)


def is_prompt(content: Content) -> bool:
    """A person's prompt, as opposed to the tool results that also travel as 'user' (and
    the note after a cancelled prompt)."""
    return (
        content.role == "user"
        and any(p.text for p in content.parts)
        and not is_cancel_note(content)
    )


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One row of the session list, with the counters kept on it."""

    id: str
    title: str
    workspace: str
    provider: str
    model: str
    created: float
    updated: float
    messages: int = 0
    turns: int = 0
    tokens_input: int = 0
    tokens_output: int = 0
    tokens: int = 0
    imported: bool = False
    source: str = "gemtui"
    parent_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The outside contract of ``gemtui sessions list --json``."""
        return {
            "id": self.id,
            "title": self.title,
            "workspace": self.workspace,
            "provider": self.provider,
            "model": self.model,
            "created": iso(self.created),
            "updated": iso(self.updated),
            "messages": self.messages,
            "tokens": self.tokens,
        }


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One matching message; ``spans`` are the highlighted ranges of ``snippet``."""

    session_id: str
    message_index: int
    role: str
    """Who said it, as a person reads it: ``user``, ``model``, ``tool call`` or ``tool
    result`` (a tool's answer travels in a user message but is not the person's words)."""
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_marked(cls, session_id: str, index: int, role: str, marked: str) -> SearchHit:
        text: list[str] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        start = -1
        for ch in marked:
            if ch == HIT_START:
                start = pos
            elif ch == HIT_END:
                if start >= 0:
                    spans.append((start, pos))
                start = -1
            else:
                text.append(ch)
                pos += 1
        return cls(session_id, index, role, "".join(text), tuple(spans))


@dataclass(slots=True)
class SessionMatch:
    """A session with its matching messages, newest hit first."""

    session: SessionInfo
    hits: list[SearchHit] = field(default_factory=list)
