"""History compression: summarise the older turns when the prompt nears the context window.

The newest ~30 % of the history (by size) stays verbatim; the split only falls before a
user message that is real user text, so a functionCall and its functionResponse are
never separated. If the summary does not make the history smaller, nothing changes.
"""

from __future__ import annotations

from msgspec import Struct, field

from gemtui.bus.values import Usage
from gemtui.chat.chat import Chat
from gemtui.chat.history import extract_curated_history, merge_user_turns
from gemtui.chat.output_bound import SUMMARY_TOKENS, prompt_estimate
from gemtui.chat.turn import usage_from_metadata
from gemtui.wire import (
    Content,
    GenerateContentRequest,
    GenerationConfig,
    Part,
    Tool,
    response_text,
)
from gemtui.wire.cancel_note import is_cancel_note

__all__ = [
    "COMPRESSION_PROMPT",
    "CompressionResult",
    "compress_history",
    "find_split_point",
    "is_summary_exchange",
]

COMPRESSION_PROMPT = (
    "You are the component that summarises a coding agent's conversation history. "
    "Write a dense summary that keeps: the user's overall goal, every decision made, "
    "files read or changed and why, commands run and their results, errors seen, and the "
    "next steps planned. It replaces the history, so leave nothing out that later work "
    "needs. Answer with the summary only."
)

_ACK = "Got it. Thanks for the additional context!"
_SUMMARY_OPEN = "<conversation_summary>"


def is_summary_exchange(content: Content) -> bool:
    """Whether ``content`` is one of the two entries a compression puts first (the summary
    sent as a user message, and the model's acknowledgement): the model's context, not
    something the person said or read."""
    text = "".join(p.text or "" for p in content.parts)
    if content.role == "user":
        return text.startswith(_SUMMARY_OPEN)
    return content.role == "model" and text == _ACK


class CompressionResult(Struct, frozen=True):
    """Tokens before and after a compression attempt, and whether it took."""

    tokens_before: int
    tokens_after: int
    compressed: bool
    usage: Usage = field(default_factory=Usage)
    """The summarising call's tokens (none when no call was made): paid like a turn's."""


def _size(content: Content) -> int:
    return len(content.model_dump_json(exclude_none=True))


def find_split_point(history: list[Content], preserve: float) -> int:
    """Index of the first content kept verbatim: a user text message, ~``preserve`` from the end."""
    total = sum(_size(c) for c in history)
    target = total * (1 - preserve)
    running = 0
    for idx, content in enumerate(history):
        if running >= target and _is_user_text(content):
            return idx
        running += _size(content)
    return len(history)


def _is_user_text(content: Content) -> bool:
    """A prompt: the kept part may start there (not at a cancel note, which speaks of the
    prompt before it)."""
    return (
        content.role == "user"
        and all(p.function_response is None for p in content.parts)
        and not is_cancel_note(content)
    )


def _first_turn(turns: list[Content], merged_index: int) -> int:
    """Where the request's message ``merged_index`` starts in ``turns`` (consecutive user
    turns are one message in a request). The kept turns are taken from ``turns``, so a
    cancelled prompt's note stays a message of its own, as views and the store expect."""
    message = -1
    for i, content in enumerate(turns):
        if not (i and content.role == "user" and turns[i - 1].role == "user"):
            message += 1
        if message == merged_index:
            return i
    return len(turns)


def over_threshold(tokens: int, *, threshold: float, context_window: int) -> bool:
    """The one compression rule: the prompt passed ``threshold`` of the context window."""
    return tokens >= threshold * context_window


async def compress_history(
    chat: Chat,
    *,
    context_window: int,
    threshold: float = 0.5,
    preserve: float = 0.3,
    force: bool = False,
    prompt_tokens: int | None = None,
) -> CompressionResult | None:
    """Compress when the history passes ``threshold`` of the window (or when forced).

    ``prompt_tokens`` (the last turn's prompt size from its usage) spares a countTokens
    call on every turn: the model is asked to count only when compression is likely.
    """

    def due(tokens: int) -> bool:
        return over_threshold(tokens, threshold=threshold, context_window=context_window)

    if not force and prompt_tokens is not None and not due(prompt_tokens):
        return None
    turns = extract_curated_history(chat.history)  # as they happened: a note stays apart
    history = merge_user_turns(turns)  # as requests send them
    if not history:
        return None
    before = await chat.generator.count_tokens(history, model=chat.model)
    if not force and not due(before):
        return None
    split = find_split_point(history, preserve)
    older, kept = history[:split], turns[_first_turn(turns, split) :]
    if not older:
        return CompressionResult(before, before, False)
    request = GenerateContentRequest(
        contents=[*older, Content.user("Summarise the conversation so far, as instructed.")],
        system_instruction=Content(role="user", parts=[Part(text=COMPRESSION_PROMPT)]),
        # some APIs (Anthropic) refuse tool calls in history when no tools are declared
        tools=[Tool(function_declarations=chat.declarations)] if chat.declarations else None,
    )
    request.generation_config = GenerationConfig(max_output_tokens=_summary_bound(chat, request))
    response = await chat.generator.generate(request, model=chat.model)
    usage = usage_from_metadata(response.usage_metadata)
    summary = response_text(response).strip()
    if not summary:
        return CompressionResult(before, before, False, usage)
    new_history = [
        Content.user(f"{_SUMMARY_OPEN}\n{summary}\n</conversation_summary>"),
        Content.model(_ACK),
        *kept,
    ]
    after = await chat.generator.count_tokens(merge_user_turns(new_history), model=chat.model)
    if after >= before:
        return CompressionResult(before, after, False, usage)
    chat.replace_history(new_history, "compression")
    return CompressionResult(before, after, True, usage)


def _summary_bound(chat: Chat, request: GenerateContentRequest) -> int:
    """``SUMMARY_TOKENS``, or less where the window leaves less after the older history."""
    bound = None
    if chat.output_bound is not None:
        prompt = prompt_estimate(request.contents, COMPRESSION_PROMPT, chat.declarations)
        bound = chat.output_bound(prompt)
    return min(SUMMARY_TOKENS, bound or SUMMARY_TOKENS)
