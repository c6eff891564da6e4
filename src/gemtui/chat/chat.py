"""Chat: one conversation's history and the streaming call that extends it.

The comprehensive history keeps everything; requests use the curated one. A stream that
breaks while being read, or ends invalid (no finish reason and no call, no text, or
MALFORMED_FUNCTION_CALL), is tried again with temperature 1 after 1, 2, 4 s, and a
``StreamRetry`` tells the views to throw away the partial answer. An answer that passes
``max_answer_chars`` is stopped with ``AnswerTooLongError`` (not retried), keeping what
arrived, as a cancel does.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass

from gemtui.chat.history import (
    SKIP_THOUGHT_SIGNATURE,
    consolidate_parts,
    ensure_active_loop_signatures,
    extract_curated_history,
    is_valid_content,
    strip_thought_signatures,
)
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

__all__ = ["Chat", "StreamChunk", "StreamRetry"]


@dataclass(frozen=True, slots=True)
class StreamChunk:
    response: GenerateContentResponse


@dataclass(frozen=True, slots=True)
class StreamRetry:
    attempt: int
    reason: str


SIGNATURE_PROVIDERS = frozenset({"gemini", "code-assist", "replay"})


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
    ) -> None:
        self.generator = generator
        self.model = model
        self.system_instruction = system_instruction
        self.declarations = list(declarations)
        self.history: list[Content] = list(history or [])
        self.generation_config = generation_config
        self.retry_delays = tuple(retry_delays)
        self.max_answer_chars = max_answer_chars
        """An answer streaming more than this is stopped (``AnswerTooLongError``)."""
        inner = getattr(generator, "inner", generator)
        self.keeps_thoughts: bool = bool(getattr(inner, "keeps_thought_text", False))
        """Providers that need thinking text sent back (Anthropic) keep it in history."""

    # -- history ----------------------------------------------------------------
    def curated_history(self) -> list[Content]:
        return extract_curated_history(self.history)

    def set_history(self, history: list[Content]) -> None:
        self.history = list(history)

    def set_model(self, model: str) -> None:
        if model != self.model:
            self.history = strip_thought_signatures(self.history)
            self.model = model

    def add_history(self, content: Content) -> None:
        self.history.append(content)

    def build_request(
        self, contents: list[Content], config: GenerationConfig | None = None
    ) -> GenerateContentRequest:
        if self.generator.name in SIGNATURE_PROVIDERS:
            contents = ensure_active_loop_signatures(contents)
        return GenerateContentRequest(
            contents=contents,
            system_instruction=(
                Content(role="user", parts=[Part(text=self.system_instruction)])
                if self.system_instruction
                else None
            ),
            tools=[Tool(function_declarations=self.declarations)] if self.declarations else None,
            generation_config=config or self.generation_config,
        )

    # -- the call ---------------------------------------------------------------
    async def send_message_stream(
        self, message: Content, *, prompt_id: str = ""
    ) -> AsyncGenerator[StreamChunk | StreamRetry, None]:
        """Stream the model's answer to ``message``; history is updated as it completes.

        On cancellation the partial text (not partial calls) is kept in history, so
        nothing the model already said is lost.
        """
        if not (self.history and self.history[-1] is message):
            self.history.append(message)  # a resend (fallback model) is recorded once
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
                stream = self.generator.stream(request, model=self.model, prompt_id=prompt_id)
                try:
                    async for chunk in stream:
                        reason, grown = _collect(chunk, parts)
                        finish = reason or finish
                        size += grown
                        yield StreamChunk(chunk)
                        if limit is not None and size > limit:
                            raise AnswerTooLongError(limit)  # the partial answer is kept below
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
                        for p in consolidate_parts(parts, keep_thoughts=self.keeps_thoughts)
                        if p.function_call is None
                    ]
                    partial = Content(role="model", parts=kept)
                    if is_valid_content(partial):
                        self.history.append(partial)
            if failed:
                continue
            problem = _invalid_reason(parts, finish)
            if problem is None:
                recorded = consolidate_parts(parts, keep_thoughts=self.keeps_thoughts)
                if self.generator.name in SIGNATURE_PROVIDERS:
                    _sign_first_call(recorded)
                answer = Content(role="model", parts=recorded)
                if is_valid_content(answer):  # an empty answer (SAFETY, thinking only) is not kept
                    self.history.append(answer)
                return
            last_error = problem
        raise StreamError(
            f"The model's answer was still invalid after {attempts} attempts: {last_error}",
            kind="invalid",
        )


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
