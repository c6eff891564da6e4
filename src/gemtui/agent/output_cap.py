"""The cap on one answer's tokens for the provider and model in use.

Why: a local server told nothing decodes until its window is full; the hosted APIs
refuse a cap above what the model can write (Gemini 2.0 takes at most 8,192, Claude's
Messages API needs ``max_tokens`` always). So each kind gets the cap its models take,
unless the person set ``[chat] max_output_tokens``; the chat lowers it to the room the
window leaves after each prompt (``chat.output_bound``). OpenAI's own API is left to
its per-model limits: its models' caps differ too much to guess and it always stops.
"""

from __future__ import annotations

import os
from typing import Protocol

from gemtui.agent.provider_choice import GEMINI_KINDS, ResolvedProvider
from gemtui.chat.output_bound import OutputBound, room_for_answer
from gemtui.config.settings import Settings

__all__ = ["LOCAL_OUTPUT_CAP", "default_output_cap", "output_bound_for", "session_bound"]

LOCAL_OUTPUT_CAP = 8192
"""A local (or other OpenAI-compatible) server's answer: a whole file's rewrite fits."""
_GEMINI_LONG = 65_536
"""Gemini 2.5 and later write up to this many tokens, thoughts included."""
_GEMINI_SHORT = 8192
"""Gemini 2.0 and 1.5 take no more."""


def default_output_cap(provider: ResolvedProvider, model: str) -> int | None:
    """The cap for ``model`` on ``provider`` when the settings name none (None: the API
    keeps its own)."""
    if provider.kind in GEMINI_KINDS:
        older = any(f"gemini-{v}" in model for v in ("1.0", "1.5", "2.0"))
        return _GEMINI_SHORT if older else _GEMINI_LONG
    if provider.kind == "anthropic":  # the converters load with their provider, not here
        from gemtui.providers.convert_anthropic import DEFAULT_MAX_TOKENS

        return DEFAULT_MAX_TOKENS
    if provider.kind == "openai":
        from gemtui.providers.openai_compat import DEFAULT_OPENAI_BASE_URL

        base = provider.settings.base_url or os.environ.get("OPENAI_BASE_URL") or ""
        base = (base or DEFAULT_OPENAI_BASE_URL).rstrip("/")
        return None if base == DEFAULT_OPENAI_BASE_URL else LOCAL_OUTPUT_CAP
    return None


def output_bound_for(
    provider: ResolvedProvider, model: str, setting: int | None, prompt_tokens: int
) -> int | None:
    """The bound on the next answer of ``model``: the setting or the kind's cap, lowered
    to the room ``provider``'s window leaves after ``prompt_tokens``."""
    cap = setting or default_output_cap(provider, model)
    if cap is None:
        return None
    return room_for_answer(provider.context_window, prompt_tokens, cap)


class _Session(Protocol):
    @property
    def provider(self) -> ResolvedProvider: ...
    @property
    def model(self) -> str: ...
    @property
    def settings(self) -> Settings: ...


def session_bound(session: _Session) -> OutputBound:
    """The bound for the session's chat: its provider, model and settings as they are
    at each request (a ``/model`` switch or a learned window counts at once)."""
    return lambda prompt: output_bound_for(
        session.provider, session.model, session.settings.chat.max_output_tokens, prompt
    )
