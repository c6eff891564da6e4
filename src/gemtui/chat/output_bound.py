"""How many tokens one answer may take: every request carries a bound.

Why: a server that is told no limit decodes until its window fills (llama-server's
``n_predict`` −1 ran a 0.5B model's plain answer for 300 s), and a window already
holding a long prompt has only the rest for the answer. The bound is the cap (the
person's ``[chat] max_output_tokens``, else the provider's usual one) lowered to the
room the window leaves after the prompt, never under a floor so a full window still
gets a short answer rather than a refusal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gemtui.wire import Content, FunctionDeclaration, GenerationConfig
from gemtui.wire.token_estimate import estimate_tokens, tokens_for_chars

__all__ = [
    "OUTPUT_FLOOR",
    "SUMMARY_TOKENS",
    "OutputBound",
    "prompt_estimate",
    "room_for_answer",
    "with_bound",
]

OutputBound = Callable[[int], int | None]
"""Given the prompt's estimated tokens, the answer's bound (None: leave the server's)."""

OUTPUT_FLOOR = 256
"""The least an answer is allowed, however full the window."""
SUMMARY_TOKENS = 8192
"""A compression summary: long enough for the state it keeps, short of a runaway."""


def room_for_answer(window: int, prompt_tokens: int, cap: int) -> int:
    """``cap`` lowered to what ``window`` leaves after the prompt (with a sixteenth kept
    spare, as the prompt is only estimated), never under ``OUTPUT_FLOOR``."""
    room = window - prompt_tokens - window // 16
    return max(OUTPUT_FLOOR, min(cap, room))


def prompt_estimate(
    contents: Sequence[Content], system: str | None, declarations: Sequence[FunctionDeclaration]
) -> int:
    """The request's estimated prompt tokens: history, system text and tool schemas."""
    chars = len(system or "") + sum(len(d.model_dump_json()) for d in declarations)
    return estimate_tokens(contents) + tokens_for_chars(chars)


def with_bound(config: GenerationConfig | None, bound: int | None) -> GenerationConfig | None:
    """``config`` carrying ``bound`` as its ``max_output_tokens``, unless it already has
    one (a hook's or a caller's own) or there is no bound."""
    if bound is None or (config is not None and config.max_output_tokens is not None):
        return config
    return (config or GenerationConfig()).model_copy(update={"max_output_tokens": bound})
