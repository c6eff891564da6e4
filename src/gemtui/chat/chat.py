"""Chat: one conversation's history and the streaming call that extends it.

The comprehensive history keeps everything; requests use the curated one. A stream that
breaks while being read, or ends invalid (no finish reason and no call, no text, or
MALFORMED_FUNCTION_CALL), is tried again with temperature 1 after 1, 2, 4 s, and a
``StreamRetry`` tells the views to throw away the partial answer. An answer that passes
``max_answer_chars`` is stopped with ``AnswerTooLongError`` (not retried), keeping what
arrived up to the end of the word that passed the limit, as a cancel does.

``model_hooks`` (the session's BeforeModel, BeforeToolSelection and AfterModel hooks) may
rewrite each request, answer it themselves, rewrite each chunk, or block the call.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import Protocol

from msgspec import Struct

from gemtui.chat.history import (
    SKIP_THOUGHT_SIGNATURE,
    consolidate_parts,
    ensure_active_loop_signatures,
    extract_curated_history,
    is_valid_content,
    merge_user_turns,
    strip_thought_signatures,
)
from gemtui.chat.output_bound import OutputBound, prompt_estimate, with_bound
from gemtui.errors import AnswerTooLongError, StreamError
from gemtui.providers.base import ContentGenerator, aclose_stream
from gemtui.wire import (
    Content,
    FunctionDeclaration,
    GenerateContentRequest,
    GenerateContentResponse,
    GenerationConfig,
    Part,
    Tool,
)
from gemtui.wire.cancel_note import cancel_note

__all__ = ["Chat", "ModelHooks", "StreamChunk", "StreamRetry"]

_SPACE = re.compile(r"\s")


class StreamChunk(Struct, frozen=True):
    """One response chunk of the stream."""

    response: GenerateContentResponse


class StreamRetry(Struct, frozen=True):
    """The stream is asked for again; the turn discards what it showed."""

    attempt: int
    reason: str


class ModelHooks(Protocol):
    """Hooks around each model call; either method raises ``HookBlockedError`` to block."""

    async def before_model(
        self, request: GenerateContentRequest, model: str
    ) -> tuple[GenerateContentRequest, str, GenerateContentResponse | None]:
        """The request and model to send, and a response that replaces the call (or None)."""
        ...

    async def after_model(
        self, request: GenerateContentRequest, chunk: GenerateContentResponse
    ) -> GenerateContentResponse:
        """The chunk as the rest of gemtui sees it."""
        ...


HistoryListener = Callable[[int, "Content | None", "str | None"], None]
"""``(index, content, None)`` for an entry appended, ``(-1, None, reason)`` for a
replacement (the new history is ``chat.history``)."""


class Chat:
    """History plus the model call; owns nothing about tools beyond their declarations."""

    def __init__(
        self,
        generator: ContentGenerator,
        *,
        model: str,
        system_instruction: str | None = None,
        declarations: Sequence[FunctionDeclaration] = (),
        history: list[Content] | None = None,
        generation_config: GenerationConfig | None = None,
        retry_delays: Sequence[float] = (1.0, 2.0, 4.0),
        max_answer_chars: int | None = None,
        on_history: HistoryListener | None = None,
        model_hooks: ModelHooks | None = None,
        output_bound: OutputBound | None = None,
    ) -> None:
        self.generator = generator
        self.model = model
        self.system_instruction = system_instruction
        self.declarations = list(declarations)
        self._history: list[Content] = list(history or [])
        self.on_history = on_history
        """Told of every change to the history (the session publishes it on the bus)."""
        self.generation_config = generation_config
        self.retry_delays = tuple(retry_delays)
        self.max_answer_chars = max_answer_chars
        """An answer streaming more than this is stopped (``AnswerTooLongError``)."""
        self.answer_cut: int | None = None
        """Set by a caller about to close the stream early (a loop seen mid-batch): the
        partial answer kept in history ends after this many characters of text, as shown."""
        self.model_hooks = model_hooks
        """The session's model hooks (its own chat only, as in Gemini CLI)."""
        self.output_bound = output_bound
        """Each request's ``max_output_tokens`` from its prompt size (``output_bound``)."""

    @property
    def keeps_thoughts(self) -> bool:
        """Providers that need thinking text sent back (Anthropic) keep it in history."""
        return self.generator.capabilities.keeps_thought_text

    # -- history: the one writer; every change goes through these and is published --------
    @property
    def history(self) -> list[Content]:
        """The comprehensive history (read it; change it only through the methods below)."""
        return self._history

    def curated_history(self) -> list[Content]:
        return merge_user_turns(extract_curated_history(self._history))

    def _append(self, content: Content) -> None:
        self._history.append(content)
        if self.on_history is not None:
            self.on_history(len(self._history) - 1, content, None)

    def replace_history(self, history: list[Content], reason: str) -> None:
        """The whole history changes (compression, a model switch, clear)."""
        self._history = list(history)
        if self.on_history is not None:
            self.on_history(-1, None, reason)

    def add_tool_responses(self, message: Content | list[Part]) -> None:
        """The answers to the model's calls, sent with the next request (a message that
        is then sent is recorded once: ``send_message_stream`` sees it is already last)."""
        if isinstance(message, list):
            message = Content(role="user", parts=message)
        self._append(message)

    def record_cancelled(self, prompt: Content) -> None:
        """The person cancelled ``prompt``: it stays in history (recorded now if no call
        had taken it yet), followed by a note saying so, so the next request tells the
        model it was cancelled instead of asking it again with the new prompt."""
        if not any(c is prompt for c in self._history):
            self._append(prompt)
        self._append(cancel_note())

    def set_model(self, model: str) -> None:
        if model != self.model:
            stripped = strip_thought_signatures(self._history)
            if any(a is not b for a, b in zip(stripped, self._history, strict=True)):
                self.replace_history(stripped, "model")
            self.model = model

    def build_request(
        self, contents: list[Content], config: GenerationConfig | None = None
    ) -> GenerateContentRequest:
        if self.generator.capabilities.thought_signatures:
            contents = ensure_active_loop_signatures(contents)
        config = config or self.generation_config
        if self.output_bound is not None:
            prompt = prompt_estimate(contents, self.system_instruction, self.declarations)
            config = with_bound(config, self.output_bound(prompt))
        return GenerateContentRequest(
            contents=contents,
            system_instruction=(
                Content(role="user", parts=[Part(text=self.system_instruction)])
                if self.system_instruction
                else None
            ),
            tools=[Tool(function_declarations=self.declarations)] if self.declarations else None,
            generation_config=config,
        )

    # -- the call ---------------------------------------------------------------
    async def send_message_stream(
        self, message: Content, *, prompt_id: str = ""
    ) -> AsyncGenerator[StreamChunk | StreamRetry, None]:
        """Stream the model's answer to ``message``; history is updated as it completes.

        On cancellation the partial text (not partial calls) is kept in history, so
        nothing the model already said is lost.
        """
        if not (self._history and self._history[-1] is message):
            self._append(message)  # a resend (fallback model) is recorded once
        self.answer_cut = None
        contents = self.curated_history()
        attempts = len(self.retry_delays) + 1
        last_error = ""
        for attempt in range(attempts):
            config = self.generation_config
            if attempt > 0:
                config = (config or GenerationConfig()).model_copy(update={"temperature": 1.0})
                yield StreamRetry(attempt, last_error)
                await asyncio.sleep(self.retry_delays[attempt - 1])
            request = self.build_request(contents, config)
            parts: list[Part] = []
            finish: str | None = None
            completed = failed = False
            size, limit = 0, self.max_answer_chars
            try:
                stream = self._open(request, prompt_id)
                try:
                    async for chunk in stream:
                        reason, grown = _collect(chunk, parts)
                        finish = reason or finish
                        size += grown
                        if limit is not None and size > limit:
                            _end_at_word(chunk, size - limit)
                            yield StreamChunk(chunk)
                            raise AnswerTooLongError(limit)  # the partial answer is kept below
                        yield StreamChunk(chunk)
                finally:
                    await aclose_stream(stream)
                completed = True
            except StreamError as exc:
                failed = True
                last_error = str(exc)
            finally:
                if not completed and not failed and parts:
                    # cancelled mid-stream: keep what the model said, never half a call
                    kept = [
                        p
                        for p in consolidate_parts(
                            _text_cut(parts, self.answer_cut), keep_thoughts=self.keeps_thoughts
                        )
                        if p.function_call is None
                    ]
                    partial = Content(role="model", parts=kept)
                    if is_valid_content(partial):
                        self._append(partial)
            if failed:
                continue
            problem = _invalid_reason(parts, finish)
            if problem is None:
                recorded = consolidate_parts(parts, keep_thoughts=self.keeps_thoughts)
                if self.generator.capabilities.thought_signatures:
                    _sign_first_call(recorded)
                answer = Content(role="model", parts=recorded)
                if is_valid_content(answer):  # an empty answer (SAFETY, thinking only) is not kept
                    self._append(answer)
                return
            last_error = problem
        raise StreamError(
            f"The model's answer was still invalid after {attempts} attempts: {last_error}",
            kind="invalid",
        )

    def _open(
        self, request: GenerateContentRequest, prompt_id: str
    ) -> AsyncIterator[GenerateContentResponse]:
        if self.model_hooks is None:
            return self.generator.stream(request, model=self.model, prompt_id=prompt_id)
        return self._hooked(self.model_hooks, request, prompt_id)

    async def _hooked(
        self, hooks: ModelHooks, request: GenerateContentRequest, prompt_id: str
    ) -> AsyncGenerator[GenerateContentResponse, None]:
        request, model, answer = await hooks.before_model(request, self.model)
        if answer is not None:
            yield answer
            return
        stream = self.generator.stream(request, model=model, prompt_id=prompt_id)
        try:
            async for chunk in stream:
                yield await hooks.after_model(request, chunk)
        finally:
            await aclose_stream(stream)


def _sign_first_call(parts: list[Part]) -> None:
    """Record the signature a Gemini model needs on the turn's first call, once, in place."""
    for i, part in enumerate(parts):
        if part.function_call is not None:
            if not part.thought_signature:
                parts[i] = part.model_copy(update={"thought_signature": SKIP_THOUGHT_SIGNATURE})
            return


def _collect(chunk: GenerateContentResponse, parts: list[Part]) -> tuple[str | None, int]:
    """Add the chunk's parts (giving calls without an id a unique one).

    Returns the chunk's finish reason and the characters it added (text, thoughts, call
    arguments): counted per chunk, so the cost never grows with the answer.
    """
    finish = None
    size = 0
    for cand in chunk.candidates or []:
        if cand.finish_reason:
            finish = cand.finish_reason
        if cand.content:
            for part in cand.content.parts:
                call = part.function_call
                if call is not None:
                    if not call.id:
                        call.id = f"{call.name}-{uuid.uuid4().hex[:12]}"
                    size += len(call.name) + len(json.dumps(call.args, ensure_ascii=False))
                elif part.text:
                    size += len(part.text)
                parts.append(part)
    return finish, size


def _text_cut(parts: list[Part], limit: int | None) -> list[Part]:
    """``parts`` with their answer text ending after ``limit`` characters (None: all)."""
    if limit is None:
        return parts
    out: list[Part] = []
    for part in parts:
        if part.text and not part.thought and part.function_call is None:
            if limit <= 0:
                continue
            if len(part.text) > limit:
                part = part.model_copy(update={"text": part.text[:limit]})
            limit -= len(part.text or "")
        out.append(part)
    return out


def _end_at_word(chunk: GenerateContentResponse, over: int) -> None:
    """Cut the answer text that passed the cap at the end of the word passing it.

    Why: a provider may join the pieces that arrived together into one chunk (see
    ``providers.gemini_frames``), so the chunk that crosses the cap may reach far past
    it; ending at the word keeps the overshoot a word long, however many pieces were
    joined. ``over`` is how many characters the chunk went past the cap; if its last
    part is not answer text that long (a call's arguments crossed it), or the word does
    not end in it, the chunk is kept whole.
    """
    for cand in reversed(chunk.candidates or []):
        if cand.content and cand.content.parts:
            part = cand.content.parts[-1]
            text = part.text
            if part.function_call is None and not part.thought and text and len(text) >= over:
                space = _SPACE.search(text, len(text) - over + 1)
                if space is not None:
                    part.text = text[: space.start()]
            return


def _invalid_reason(parts: list[Part], finish: str | None) -> str | None:
    if any(p.function_call is not None for p in parts):
        return None
    if finish is None:
        return "the stream ended without a finish reason"
    if finish == "MALFORMED_FUNCTION_CALL":
        return "the model produced a malformed function call"
    if not any(p.text and not p.thought for p in parts):
        if finish in ("SAFETY", "RECITATION", "MAX_TOKENS", "PROHIBITED_CONTENT", "BLOCKLIST"):
            return None
        return "the model returned no text"
    return None
