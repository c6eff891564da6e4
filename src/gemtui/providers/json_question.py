"""Ask the model a question whose answer is JSON of a given shape: the side calls.

Why one helper: the auto router's classification, the next-speaker check and the edit
fixer each send one JSON-mode request with a schema and read the answer back. Each is a
convenience, so none may fail the prompt: a provider error, an answer that is not JSON
and JSON of the wrong shape all come back as a ``JsonAnswer`` without a value (and with
the call's usage where there was one), never as an exception. The schema sent is the
answer model's own, so what is asked and what is accepted cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from enum import Enum
from typing import Any, Generic, TypeVar

from msgspec import Struct
from pydantic import BaseModel, ValidationError

from gemtui.wire import (
    Content,
    GenerateContentRequest,
    GenerateContentResponse,
    GenerationConfig,
    Part,
    ThinkingConfig,
    UsageMetadata,
)

__all__ = [
    "SIDE_CALL_TOKENS",
    "AnswerProblem",
    "JsonAnswer",
    "Send",
    "answer_schema",
    "answer_text",
    "ask_json",
]

SIDE_CALL_TOKENS = 1024
"""A side call's answer is a few fields: a bound well past them, so one that runs on
(a small model's endless whitespace) ends."""

A = TypeVar("A", bound=BaseModel)

Send = Callable[[GenerateContentRequest], Awaitable[GenerateContentResponse]]
"""Sends one request to the model the question is for and returns its whole response."""


class AnswerProblem(Enum):
    """Why a JSON question has no answer."""

    FAILED = "the call failed"
    NOT_JSON = "the answer was not JSON"
    WRONG_SHAPE = "the answer was not the JSON asked for"


class JsonAnswer(Struct, Generic[A], frozen=True):
    """The validated answer, or the problem; the usage the call reported either way."""

    value: A | None
    usage: UsageMetadata | None = None
    """None when the call failed before a response (nothing was billed that we know of)."""
    problem: AnswerProblem | None = None
    error: Exception | None = None
    """The provider's exception, for ``AnswerProblem.FAILED``: callers name it or its status."""


def answer_schema(answer: type[BaseModel]) -> dict[str, Any]:
    """``answer``'s JSON schema as providers take it: without pydantic's titles, defaults
    and the class docstring (written for us, not the model). A model's ``json_schema_extra``
    may list as ``required`` fields its parser forgives when missing."""
    schema = answer.model_json_schema()
    schema.pop("description", None)
    return dict(_strip(schema))


def _strip(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "default"):
            continue
        if key == "properties":  # property names are data, not schema keywords
            out[key] = {name: _strip(schema) for name, schema in value.items()}
        else:
            out[key] = _strip(value)
    return out


def answer_text(response: GenerateContentResponse) -> str:
    """The answer's text: the first candidate's parts that are not thoughts."""
    return "".join(
        p.text or ""
        for c in (response.candidates or [])[:1]
        for p in (c.content.parts if c.content else [])
        if not p.thought
    )


async def ask_json(
    send: Send,
    contents: Sequence[Content],
    answer: type[A],
    *,
    system: str | None = None,
    thinking: ThinkingConfig | None = None,
    max_output_tokens: int = SIDE_CALL_TOKENS,
) -> JsonAnswer[A]:
    """Ask with ``contents`` (and ``system``) in JSON mode for an ``answer``; never raises
    for the call or the answer, only for cancellation."""
    request = GenerateContentRequest(
        contents=list(contents),
        system_instruction=(
            Content(role="user", parts=[Part(text=system)]) if system is not None else None
        ),
        generation_config=GenerationConfig(
            response_mime_type="application/json",
            response_json_schema=answer_schema(answer),
            thinking_config=thinking,
            max_output_tokens=max_output_tokens,
        ),
    )
    try:
        response = await send(request)
    except Exception as exc:  # a side call is a convenience: the caller goes on without it
        return JsonAnswer(None, problem=AnswerProblem.FAILED, error=exc)
    usage = response.usage_metadata
    try:
        data = json.loads(answer_text(response))
    except ValueError:
        return JsonAnswer(None, usage, AnswerProblem.NOT_JSON)
    try:
        return JsonAnswer(answer.model_validate(data), usage)
    except ValidationError:
        return JsonAnswer(None, usage, AnswerProblem.WRONG_SHAPE)
