"""What each subagent said and did, stored under the parent's call that started it.

A subagent's history (its task, its answers, the results of its calls, the report it
handed back) is not the conversation's: the parent model only ever saw the delegation's
result. So it lives in its own table, keyed by the parent call id (``p1``; a subagent's
own delegation ``p1/c2``), and is appended to only — a compression inside the subagent
drops nothing stored. Text is masked before it is written, as every message is.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gemtui.redact import redact
from gemtui.store.records import content_text
from gemtui.store.store import _content_json
from gemtui.wire import Content

if TYPE_CHECKING:
    from gemtui.store.store import StoreCore

__all__ = ["SubagentTranscript", "add_subagent_message", "subagent_transcripts"]


@dataclass(slots=True)
class SubagentTranscript:
    """One delegation's stored story: which agent, what it said, what its calls cost."""

    parent_call: str
    agent: str = ""
    contents: list[Content] = field(default_factory=list)
    tokens: int = 0
    """Tokens of its model calls (recorded with the call id they ran under)."""
    turns: int = 0
    """Its model calls (usage rows; its answers when a store has none for it)."""


def add_subagent_message(
    store: StoreCore, session_id: str, parent_call: str, agent: str, index: int, content: Content
) -> None:
    """Append one entry of a subagent's history (``index`` is its place in the
    subagent's own history, kept for reference; order is the order of writing)."""
    with store._tx() as c:
        c.execute(
            "INSERT INTO subagent_messages (session_id, parent_call, agent, idx, role, content,"
            " text, created) VALUES (?,?,?,?,?,?,?,?)",
            (
                session_id,
                redact(parent_call),
                redact(agent),
                index,
                content.role or "user",
                _content_json(content),
                redact(content_text(content)),
                time.time(),
            ),
        )
        c.execute("UPDATE sessions SET updated = ? WHERE id = ?", (time.time(), session_id))


def subagent_transcripts(store: StoreCore, session_id: str) -> dict[str, SubagentTranscript]:
    """Every stored delegation of the session by parent call id, in the order written."""
    out: dict[str, SubagentTranscript] = {}
    rows = store._query(
        "SELECT parent_call, agent, content FROM subagent_messages WHERE session_id = ?"
        " ORDER BY id",
        (session_id,),
    )
    for parent_call, agent, body in rows:
        item = out.setdefault(parent_call, SubagentTranscript(parent_call, agent))
        item.contents.append(Content.model_validate(json.loads(body)))
    usage = store._query(
        "SELECT parent_call, count(*), coalesce(sum(total), 0) FROM usage"
        " WHERE session_id = ? AND parent_call IS NOT NULL GROUP BY parent_call",
        (session_id,),
    )
    for parent_call, turns, tokens in usage:
        item = out.setdefault(parent_call, SubagentTranscript(parent_call))
        item.turns, item.tokens = turns, tokens
    for item in out.values():
        if not item.turns:
            item.turns = sum(1 for c in item.contents if c.role == "model")
    return out
