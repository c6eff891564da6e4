"""One JSON-mode model call that repairs an old_string no strategy could place.

Why: after exact, flexible and approximate matching all fail, the model usually quoted
the file from memory; asking it once, with the file in front of it, to restate the text
it meant (as Gemini CLI's edit fixer does) saves a failed turn. The answer is only a
proposal: it goes through the same matching, preview and approval as the model's own
arguments, and the file path never changes. Off unless ``[tools] edit_fixer = true``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictStr

from gemtui.providers.json_question import ask_json
from gemtui.redact import redact
from gemtui.wire import Candidate, Content, GenerateContentRequest, GenerateContentResponse

__all__ = ["MAX_FIXER_FILE_CHARS", "EditFix", "fix_old_string"]

MAX_FIXER_FILE_CHARS = 100_000
"""Larger files are not sent: the call would cost more than the failed edit."""
FIXER_TIMEOUT = 40.0
"""Seconds the fixer may take before the edit fails as it would have without it."""
FIXER_OUTPUT_TOKENS = 8192
"""Its answer repeats the edit's search and replacement: room for a large one, but an end."""


def _text_or_empty(value: object) -> str:
    return value if isinstance(value, str) else ""


class FixerAnswer(BaseModel):
    """The fixer's JSON. Only a literal ``true`` means "no change needed", and an odd
    explanation is dropped, not the fix."""

    model_config = ConfigDict(json_schema_extra={"required": ["explanation", "search", "replace"]})

    explanation: Annotated[str, BeforeValidator(_text_or_empty)] = ""
    search: StrictStr
    replace: StrictStr
    no_changes_required: Annotated[bool, BeforeValidator(lambda v: v is True)] = Field(
        default=False, alias="noChangesRequired"
    )


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
    try:
        result = await asyncio.wait_for(
            ask_json(
                lambda request: _collect(stream(request)),
                [Content.user(prompt)],
                FixerAnswer,
                max_output_tokens=FIXER_OUTPUT_TOKENS,
            ),
            FIXER_TIMEOUT,
        )
    except TimeoutError:  # a courtesy: the edit fails as it would have without it
        return None
    answer = result.value
    if answer is None or answer.no_changes_required:
        return None
    if not answer.search or answer.search in (old, answer.replace):
        return None
    return EditFix(answer.search, answer.replace, answer.explanation)


async def _collect(chunks: AsyncIterator[GenerateContentResponse]) -> GenerateContentResponse:
    """The streamed answer as one response: every chunk's text that is not a thought."""
    parts: list[str] = []
    usage = None
    async for chunk in chunks:
        usage = chunk.usage_metadata or usage
        for candidate in chunk.candidates or []:
            for part in (candidate.content.parts if candidate.content else None) or []:
                if part.text and not part.thought:
                    parts.append(part.text)
    return GenerateContentResponse(
        candidates=[Candidate(content=Content.model("".join(parts)))], usage_metadata=usage
    )
