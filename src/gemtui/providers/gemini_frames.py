"""Gemini's streamed chunks: validated at the boundary, and plain text merged.

Every frame is validated against the wire types. Most frames of a long answer have one
shape, a piece of answer text: one candidate with one text part, and at most usage, the
model version and the response id beside it. That shape has its own compiled
validator, strict about extra keys, which builds plain dicts instead of five models a
frame; any frame it refuses (a thought, a call, a finish reason, citations, safety
ratings, an unknown key) is validated as a whole ``GenerateContentResponse``, and one
that fits neither raises ``StreamError(kind="malformed")``.

Text frames that arrive together are merged: the layers above see one chunk with the
joined text and the latest usage, which is what they would have made of the pieces one
by one, at a fraction of the per-chunk cost. Anything else breaks the run and passes
through unchanged, in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal, NotRequired

from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict

from gemtui.providers.sse import frame_text, malformed
from gemtui.wire import Candidate, Content, GenerateContentResponse, Part, UsageMetadata

__all__ = ["is_answer_text", "parse_frame", "parse_frames"]

_EXACT = ConfigDict(extra="forbid")
_Role = Literal["user", "model"]


@with_config(_EXACT)
class _TextPart(TypedDict):
    text: str


@with_config(_EXACT)
class _TextContent(TypedDict):
    parts: tuple[_TextPart]
    role: NotRequired[_Role]


@with_config(_EXACT)
class _TextCandidate(TypedDict):
    content: _TextContent
    index: NotRequired[int]


@with_config(ConfigDict(extra="allow"))
class _Usage(TypedDict, total=False):
    """Token counts as a plain dict (a model is built once a run, not once a frame);
    any other count Gemini adds (``promptTokensDetails``) is kept, as the model keeps it."""

    promptTokenCount: int
    candidatesTokenCount: int
    totalTokenCount: int
    cachedContentTokenCount: int
    thoughtsTokenCount: int
    toolUsePromptTokenCount: int


@with_config(_EXACT)
class _TextChunk(TypedDict):
    """A frame that is only a piece of answer text, as Gemini spells it on the wire."""

    candidates: tuple[_TextCandidate]
    usageMetadata: NotRequired[_Usage]
    modelVersion: NotRequired[str]
    responseId: NotRequired[str]


_TEXT_CHUNK = TypeAdapter(_TextChunk)
_SNAKE_USAGE = frozenset(UsageMetadata.model_fields)
"""Usage keys the model also takes (by field name) and checks; any other extra it keeps
as it came, so ``_Usage`` may let those through unchecked."""
_Key = tuple[int | None, _Role | None, str | None, str | None]


def parse_frame(data: bytes) -> GenerateContentResponse:
    """One frame's data as a validated response, or ``StreamError(kind="malformed")``.

    Bytes that are not UTF-8 become U+FFFD, as a text decoder of the body made them.
    """
    try:
        # from text, not bytes: pydantic reads a str's UTF-8 as it is, which is faster
        return GenerateContentResponse.model_validate_json(frame_text(data))
    except ValueError as exc:
        raise malformed(data) from exc


def is_answer_text(response: GenerateContentResponse) -> bool:
    """The chunk holds answer text (not only thoughts, calls or a finish)."""
    for candidate in response.candidates or []:
        for part in candidate.content.parts if candidate.content else []:
            if part.text and not part.thought:
                return True
    return False


def parse_frames(
    frames: Iterable[bytes], *, first_alone: bool = False
) -> Iterator[GenerateContentResponse]:
    """Validate each frame's data, joining each run of text chunks into one.

    With ``first_alone`` (the stream's first batch) the first text chunk goes on by
    itself, so the answer's first words wait for nothing. A malformed frame raises
    after the chunks before it have been yielded.
    """
    run: _Run | None = None
    for data in frames:
        try:  # bytes that are not UTF-8 fail here, and are replaced below
            chunk = _TEXT_CHUNK.validate_json(data)
        except ValidationError:
            if run is not None:
                yield run.response()
                run = None
            try:
                response = GenerateContentResponse.model_validate_json(frame_text(data))
            except ValueError as exc:
                raise malformed(data) from exc
            yield response
            continue
        candidate = chunk["candidates"][0]
        key = (
            candidate.get("index"),
            candidate["content"].get("role"),
            chunk.get("modelVersion"),
            chunk.get("responseId"),
        )
        piece = candidate["content"]["parts"][0]["text"]
        usage = chunk.get("usageMetadata")
        if usage is not None and not _SNAKE_USAGE.isdisjoint(usage):
            try:  # a count under its Python name: the model reads it, so check it now
                UsageMetadata.model_validate(usage)
            except ValidationError as exc:
                raise malformed(data) from exc
        if run is not None and run.key == key:
            run.add(piece, usage)
            continue
        if run is not None:
            yield run.response()
        run = _Run(key, piece, usage)
        if first_alone:
            first_alone = False
            yield run.response()
            run = None
    if run is not None:
        yield run.response()


class _Run:
    """Consecutive text chunks of one candidate of one response."""

    __slots__ = ("key", "texts", "usage")

    def __init__(self, key: _Key, text: str, usage: _Usage | None) -> None:
        self.key = key
        self.texts = [text]
        self.usage = usage

    def add(self, text: str, usage: _Usage | None) -> None:
        self.texts.append(text)
        if usage is not None:
            self.usage = usage

    def response(self) -> GenerateContentResponse:
        index, role, model_version, response_id = self.key
        text = self.texts[0] if len(self.texts) == 1 else "".join(self.texts)
        content = Content(role=role, parts=[Part(text=text)])
        candidate = Candidate(content=content, index=index)
        return GenerateContentResponse(
            candidates=[candidate],
            usage_metadata=None if self.usage is None else UsageMetadata.model_validate(self.usage),
            model_version=model_version,
            response_id=response_id,
        )
