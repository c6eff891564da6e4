"""Token figures when the provider gives none: about four characters a token.

A request is more than its history: the system instruction and the tool declarations
go with every call (often thousands of tokens). An estimate that leaves them out makes
the context line drop to a fraction of the truth after a cancel or a compression.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.chat import Chat
    from gemtui.wire import Content

__all__ = ["estimate_request_tokens", "estimate_tokens", "request_overhead_tokens"]


def estimate_tokens(history: list[Content]) -> int:
    """The history's size, about four characters a token."""
    chars = 0
    for content in history:
        for part in content.parts:
            if part.text:
                chars += len(part.text)
            elif part.function_call is not None:
                chars += 32 + len(str(part.function_call.args))
            elif part.function_response is not None:
                chars += 32 + len(str(part.function_response.response))
    return chars // 4


def request_overhead_tokens(chat: Chat) -> int:
    """What every request carries besides the history: system instruction and tools."""
    chars = len(chat.system_instruction or "")
    if chat.declarations:
        chars += len(json.dumps([d.model_dump(exclude_none=True) for d in chat.declarations]))
    return chars // 4


def estimate_request_tokens(chat: Chat) -> int:
    """The next request's size: the history the model sees plus the overhead."""
    return estimate_tokens(chat.curated_history()) + request_overhead_tokens(chat)
