"""One JSON-mode model call that repairs an old_string no strategy could place.

Why: after exact, flexible and approximate matching all fail, the model usually quoted
the file from memory; asking it once, with the file in front of it, to restate the text
it meant (as Gemini CLI's edit fixer does) saves a failed turn. The answer is only a
proposal: it goes through the same matching, preview and approval as the model's own
arguments, and the file path never changes. Off unless ``[tools] edit_fixer = true``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from gemtui.redact import redact
from gemtui.wire import (
    Content,
    GenerateContentRequest,
    GenerateContentResponse,
    GenerationConfig,
    Part,
)

__all__ = ["MAX_FIXER_FILE_CHARS", "EditFix", "fix_old_string"]

MAX_FIXER_FILE_CHARS = 100_000
"""Larger files are not sent: the call would cost more than the failed edit."""
FIXER_TIMEOUT = 40.0
"""Seconds the fixer may take before the edit fails as it would have without it."""

_SCHEMA = {
    "type": "object",
    "properties": {
        "explanation": {"type": "string"},
        "search": {"type": "string"},
        "replace": {"type": "string"},
        "noChangesRequired": {"type": "boolean"},
    },
    "required": ["explanation", "search", "replace"],
}

_PROMPT = """An edit to a file failed: its search text is not in the file.
Instruction for the edit: {instruction}
Error: {error}

Failed search text:
<search>
{old}
</search>
Intended replacement:
<replace>
{new}
</replace>

Current file content:
<file>
{content}
</file>

Give the exact text from the file that the search meant (copy it literally, whitespace \
and all, enough lines to be unique) and the replacement for it that makes the intended \
change. If the change is already in the file, set noChangesRequired to true. \
Answer with JSON only: {{"explanation": "...", "search": "...", "replace": "...", \
"noChangesRequired": false}}."""


@dataclass(frozen=True)
class EditFix:
    """The fixer's proposal: a new old_string and new_string, and why."""

    old_string: str
    new_string: str
    explanation: str


Stream = Callable[[GenerateContentRequest], AsyncIterator[GenerateContentResponse]]


async def fix_old_string(
    stream: Stream, *, instruction: str, old: str, new: str, error: str, content: str
) -> EditFix | None:
    """The model's corrected search and replacement, or None (no answer, bad JSON, no
    change needed, the same search again, a timeout): then the edit fails as before."""
    if len(content) > MAX_FIXER_FILE_CHARS:
        return None
    # Known secrets are masked as everywhere else gemtui sends or stores text: a search
    # the fixer writes around a masked key simply fails to match.
    prompt = redact(
        _PROMPT.format(instruction=instruction, error=error, old=old, new=new, content=content)
    )
    request = GenerateContentRequest(
        contents=[Content(role="user", parts=[Part(text=prompt)])],
        generation_config=GenerationConfig(
            response_mime_type="application/json", response_json_schema=_SCHEMA
        ),
    )
    try:
        text = await asyncio.wait_for(_collect(stream(request)), FIXER_TIMEOUT)
        answer = json.loads(text)
    except Exception:  # a courtesy: a timeout, bad JSON or a provider error changes nothing
        return None
    if not isinstance(answer, dict) or answer.get("noChangesRequired") is True:
        return None
    search, replace = answer.get("search"), answer.get("replace")
    if not isinstance(search, str) or not isinstance(replace, str):
        return None
    if not search or search in (old, replace):
        return None
    explanation = answer.get("explanation")
    return EditFix(search, replace, explanation if isinstance(explanation, str) else "")


async def _collect(chunks: AsyncIterator[GenerateContentResponse]) -> str:
    parts: list[str] = []
    async for chunk in chunks:
        for candidate in chunk.candidates or []:
            for part in (candidate.content.parts if candidate.content else None) or []:
                if part.text and not part.thought:
                    parts.append(part.text)
    return "".join(parts)
