"""The one token estimate, for when a provider gives no count: four characters a token.

Why one: the context line, the compression threshold, a call cut short, the
OpenAI-compatible ``countTokens`` and ``/memory show`` all guess sizes the same way, so
the figure the person sees is the figure the engine decides by. It lives in ``wire`` so
providers and the store may use it without importing anything above them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.wire.types import Content, Part

__all__ = ["CHARS_PER_TOKEN", "content_chars", "estimate_tokens", "part_chars", "tokens_for_chars"]

CHARS_PER_TOKEN = 4
"""About four characters of English or code make one token, for every tokenizer we meet."""


def tokens_for_chars(chars: int) -> int:
    """Tokens for ``chars`` characters, rounded down (as the context line always has)."""
    return max(chars, 0) // CHARS_PER_TOKEN


def part_chars(part: Part) -> int:
    """Characters a part carries to the model: its text, or a call's or result's JSON."""
    chars = len(part.text or "")
    if part.function_call is not None:
        call = part.function_call
        chars += len(call.name) + len(json.dumps(call.args, ensure_ascii=False, default=str))
    if part.function_response is not None:
        result = part.function_response
        chars += len(result.name) + len(
            json.dumps(result.response, ensure_ascii=False, default=str)
        )
    return chars


def content_chars(contents: Iterable[Content]) -> int:
    """Characters of every part of ``contents``."""
    return sum(part_chars(part) for content in contents for part in content.parts)


def estimate_tokens(contents: Iterable[Content]) -> int:
    """The estimated size of ``contents`` in tokens."""
    return tokens_for_chars(content_chars(contents))
