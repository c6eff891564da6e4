"""Importing Gemini CLI's saved chats so they show up (read-only) in the browser.

Gemini CLI records each session under ``~/.gemini/tmp/<project_hash>/chats/`` as
``session-<time>-<id8>.jsonl`` (a metadata line, one line per message, ``{"$set": …}``
updates and ``{"$rewindTo": id}`` rewinds) or, in older versions, one whole-file
``.json`` ConversationRecord. Messages are ``user`` / ``gemini`` (with ``toolCalls``)
plus ``info`` / ``error`` / ``warning`` notices that were never part of the history.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from gemtui.store.store import StoreCore
from gemtui.store.titles import title_from_prompt
from gemtui.wire import Content, FunctionCall, Part

__all__ = ["ImportReport", "import_gemini_cli", "parse_chat_file"]

log = logging.getLogger(__name__)

SOURCE = "gemini-cli"


@dataclass
class ImportReport:
    """What an import of Gemini CLI chats did: imported, skipped and why."""

    imported: int = 0
    unchanged: int = 0
    failed: list[str] = field(default_factory=list)


@dataclass
class ParsedChat:
    """One Gemini CLI chat file, read into our history form."""

    session_id: str
    project_hash: str
    start: float
    updated: float
    summary: str | None
    history: list[Content]
    first_prompt: str


def _ts(value: Any, default: float) -> float:
    if not isinstance(value, str):
        return default
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return default


def _parts(content: Any) -> list[Part]:
    """A PartListUnion (a string, a part, or a list of either) as wire parts."""
    items = content if isinstance(content, list) else [content]
    out: list[Part] = []
    for item in items:
        if isinstance(item, str):
            if item:
                out.append(Part(text=item))
        elif isinstance(item, dict):
            out.append(Part.model_validate(item))
    return out


def _messages_to_history(messages: list[dict[str, Any]]) -> list[Content]:
    history: list[Content] = []
    for msg in messages:
        kind = msg.get("type")
        if kind == "user":
            parts = _parts(msg.get("content"))
            if parts:
                history.append(Content(role="user", parts=parts))
        elif kind == "gemini":
            parts = [p for p in _parts(msg.get("content")) if p.text or p.function_call]
            calls = [c for c in msg.get("toolCalls") or [] if isinstance(c, dict)]
            for call in calls:
                parts.append(
                    Part(
                        function_call=FunctionCall(
                            id=call.get("id"),
                            name=call.get("name", "tool"),
                            args=call.get("args") or {},
                        )
                    )
                )
            if parts:
                history.append(Content(role="model", parts=parts))
            results = [p for call in calls for p in _parts(call.get("result") or [])]
            if results:
                history.append(Content(role="user", parts=results))
    return history


def _read_records(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        doc = json.loads(text)
        return doc, list(doc.get("messages") or [])
    meta: dict[str, Any] = {}
    order: list[str] = []
    messages: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a crash: Gemini CLI skips it too
        if not isinstance(rec, dict):
            continue
        if isinstance(rec.get("$rewindTo"), str):
            target = rec["$rewindTo"]
            cut = order.index(target) if target in order else 0
            for mid in order[cut:]:
                messages.pop(mid, None)
            order = order[:cut]
        elif isinstance(rec.get("id"), str):
            if rec["id"] not in messages:
                order.append(rec["id"])
            messages[rec["id"]] = rec
        elif isinstance(rec.get("$set"), dict):
            meta.update(rec["$set"])
        elif isinstance(rec.get("sessionId"), str):
            meta.update(rec)
    listed = meta.get("messages")
    if isinstance(listed, list) and listed:
        return meta, listed
    return meta, [messages[m] for m in order]


def parse_chat_file(path: Path) -> ParsedChat | None:
    """One Gemini CLI chat file as a history; None when it holds no conversation."""
    meta, messages = _read_records(path)
    sid = meta.get("sessionId")
    if not isinstance(sid, str):
        return None
    history = _messages_to_history(messages)
    if not history:
        return None
    mtime = path.stat().st_mtime
    first = next((p.text for c in history if c.role == "user" for p in c.parts if p.text), "")
    return ParsedChat(
        session_id=sid,
        project_hash=str(meta.get("projectHash", "")),
        start=_ts(meta.get("startTime"), mtime),
        updated=_ts(meta.get("lastUpdated"), mtime),
        summary=meta.get("summary") if isinstance(meta.get("summary"), str) else None,
        history=history,
        first_prompt=first or "",
    )


def _project_names(workspaces: Iterable[Path | str]) -> dict[str, str]:
    """Gemini CLI names a project by the sha256 of its root path: map back the ones we know."""
    return {hashlib.sha256(str(w).encode()).hexdigest(): str(w) for w in workspaces}


def import_gemini_cli(
    store: StoreCore,
    *,
    gemini_home: Path | None = None,
    workspaces: Iterable[Path | str] = (),
) -> ImportReport:
    """Import (or refresh) every Gemini CLI chat under ``gemini_home`` (``~/.gemini``)."""
    home = gemini_home or Path.home() / ".gemini"
    names = _project_names(workspaces)
    report = ImportReport()
    files = sorted((home / "tmp").glob("*/chats/*.json*"))
    for path in files:
        if path.suffix not in (".json", ".jsonl"):
            continue
        try:
            chat = parse_chat_file(path)
        except (OSError, ValueError) as exc:
            report.failed.append(f"{path}: {exc}")
            continue
        if chat is None:
            continue
        sid = f"gemini-cli-{chat.session_id}"
        existing = store.get(sid)
        if existing is not None and existing.updated >= chat.updated:
            report.unchanged += 1
            continue
        if existing is not None:
            store.delete(sid)
        workspace = names.get(chat.project_hash) or f"gemini-cli:{chat.project_hash[:12]}"
        store.create_session(
            sid,
            title=(chat.summary and title_from_prompt(chat.summary))
            or title_from_prompt(chat.first_prompt),
            workspace=workspace,
            provider="gemini",
            model=_model_of(path),
            created=chat.start,
            imported=True,
            source=SOURCE,
        )
        store.replace_history(sid, chat.history)
        store.set_updated(sid, chat.updated)
        report.imported += 1
    return report


def _model_of(path: Path) -> str:
    try:
        _, messages = _read_records(path)
    except (OSError, ValueError):
        return ""
    return next((m["model"] for m in reversed(messages) if isinstance(m.get("model"), str)), "")
