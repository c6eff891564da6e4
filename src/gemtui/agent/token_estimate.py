"""The size of the next request, estimated with ``wire.token_estimate``'s one rule.

A request is more than its history: the system instruction and the tool declarations
go with every call (often thousands of tokens). An estimate that leaves them out makes
the context line drop to a fraction of the truth after a cancel or a compression.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from gemtui.wire.token_estimate import estimate_tokens, tokens_for_chars

if TYPE_CHECKING:
    from gemtui.chat import Chat

__all__ = ["estimate_request_tokens", "estimate_tokens", "request_overhead_tokens"]


def request_overhead_tokens(chat: Chat) -> int:
    """What every request carries besides the history: system instruction and tools."""
    chars = len(chat.system_instruction or "")
    if chat.declarations:
        chars += len(json.dumps([d.model_dump(exclude_none=True) for d in chat.declarations]))
    return tokens_for_chars(chars)


def estimate_request_tokens(chat: Chat) -> int:
    """The next request's size: the history the model sees plus the overhead."""
    return estimate_tokens(chat.curated_history()) + request_overhead_tokens(chat)
