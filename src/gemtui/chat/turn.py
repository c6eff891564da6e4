"""Turn: one model call seen as a closed set of events, checked for cancel at every chunk."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from msgspec import Struct
from msgspec.structs import replace

from gemtui.bus.events import Usage
from gemtui.chat.chat import Chat, StreamChunk, StreamRetry
from gemtui.chat.thought_headings import ThoughtHeadings
from gemtui.errors import GemtuiError, StreamError
from gemtui.wire import Content, FunctionCall, UsageMetadata
from gemtui.wire.token_estimate import tokens_for_chars

__all__ = [
    "CitationEvent",
    "ContentEvent",
    "ErrorEvent",
    "FinishedEvent",
    "InvalidStreamEvent",
    "RetryEvent",
    "ThoughtEvent",
    "ToolCallRequestEvent",
    "Turn",
    "TurnEvent",
    "UserCancelledEvent",
    "finish_message",
    "parse_thought",
    "usage_from_metadata",
]


class ContentEvent(Struct, frozen=True):
    """Answer text of one model call."""

    text: str


class ThoughtEvent(Struct, frozen=True):
    """Thinking text of one model call, its heading parsed off."""

    text: str
    """The thought without its heading."""
    subject: str | None
    """The heading of the thought this text belongs to (it carries over to later parts)."""


class ToolCallRequestEvent(Struct, frozen=True):
    """The model asked for a tool call."""

    call: FunctionCall


class CitationEvent(Struct, frozen=True):
    """A source the model cited."""

    text: str


class FinishedEvent(Struct, frozen=True):
    """The model call ended: why, with its usage."""

    reason: str | None
    usage: Usage
    message: str | None = None


class RetryEvent(Struct, frozen=True):
    """The stream broke and is asked for again (what was shown of it is void)."""

    attempt: int
    reason: str


class ErrorEvent(Struct, frozen=True):
    """The model call failed."""

    error: BaseException


class UserCancelledEvent(Struct, frozen=True):
    """The person cancelled the call."""

    pass


class InvalidStreamEvent(Struct, frozen=True):
    """The answer stayed invalid after every retry."""

    reason: str


TurnEvent = (
    ContentEvent
    | ThoughtEvent
    | ToolCallRequestEvent
    | CitationEvent
    | FinishedEvent
    | RetryEvent
    | ErrorEvent
    | UserCancelledEvent
    | InvalidStreamEvent
)

_SUBJECT = re.compile(r"^\s*\*\*(.+?)\*\*\s*", re.DOTALL)

_FINISH_MESSAGES = {
    "SAFETY": "The answer was stopped by the model's safety filters.",
    "RECITATION": "The answer was stopped because it recited copyrighted material.",
    "MAX_TOKENS": (
        "The answer was cut off: it reached the maximum output tokens (raise "
        "[chat] max_output_tokens, or ask for a shorter answer)."
    ),
    "MALFORMED_FUNCTION_CALL": "The model produced a malformed tool call.",
    "PROHIBITED_CONTENT": "The answer was stopped for prohibited content.",
    "BLOCKLIST": "The answer was stopped because it contained blocked terms.",
    "SPII": "The answer was stopped because it contained sensitive personal information.",
    "UNEXPECTED_TOOL_CALL": "The model called a tool that was not offered.",
}


def finish_message(reason: str | None) -> str | None:
    """A sentence a person understands for finish reasons other than a normal stop."""
    return _FINISH_MESSAGES.get(reason or "")


def parse_thought(text: str) -> tuple[str | None, str]:
    """Split ``**Subject** rest`` into (subject, rest), as Gemini's thoughts are written."""
    m = _SUBJECT.match(text)
    if not m:
        return None, text
    return m.group(1).strip(), text[m.end() :]


def usage_from_metadata(meta: UsageMetadata | None) -> Usage:
    if meta is None:
        return Usage()
    return Usage(
        input=meta.prompt_token_count or 0,
        output=meta.candidates_token_count or 0,
        thoughts=meta.thoughts_token_count or 0,
        cached=meta.cached_content_token_count or 0,
        total=meta.total_token_count or 0,
    )


@dataclass
class Turn:
    """Runs one model call for ``chat`` and yields its events."""

    chat: Chat
    prompt_id: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    _meta: UsageMetadata | None = field(default=None, repr=False)
    _chars: list[int] = field(default_factory=lambda: [0, 0], repr=False)
    """Characters of answer and of thought received: a call cut short is still billed."""

    def partial_usage(self) -> Usage | None:
        """What this call has cost so far, for a call cut short (cancel, timeout); None
        when nothing came back. The provider's counts where it sent them, about four
        characters a token for output it had not counted yet."""
        text, thought = self._chars
        if self._meta is None and not (text or thought):
            return None
        usage = usage_from_metadata(self._meta)
        if not (usage.output or usage.thoughts):
            output, thoughts = tokens_for_chars(text), tokens_for_chars(thought)
            usage = replace(
                usage,
                output=output,
                thoughts=thoughts,
                total=max(usage.total, usage.input + output + thoughts),
            )
        return usage

    async def run(self, message: Content) -> AsyncGenerator[TurnEvent, None]:
        headings = ThoughtHeadings()  # the subject comes from the whole thought, not a delta
        citations: list[str] = []
        meta: UsageMetadata | None = None
        stream = self.chat.send_message_stream(message, prompt_id=self.prompt_id)
        try:
            async for item in stream:
                if self.cancel.is_set():
                    yield UserCancelledEvent()
                    return
                if isinstance(item, StreamRetry):
                    citations.clear()
                    headings = ThoughtHeadings()
                    yield RetryEvent(item.attempt, item.reason)
                    continue
                assert isinstance(item, StreamChunk)
                response = item.response
                if response.usage_metadata is not None:
                    meta = self._meta = response.usage_metadata
                for cand in response.candidates or []:
                    for part in cand.content.parts if cand.content else []:
                        if part.thought and part.text:
                            self._chars[1] += len(part.text)
                            for subject, text in headings.feed(part.text):
                                yield ThoughtEvent(text, subject)
                            continue
                        for subject, text in headings.flush():  # a thought ends here
                            yield ThoughtEvent(text, subject)
                        if part.function_call is not None:
                            yield ToolCallRequestEvent(part.function_call)
                        elif part.text:
                            self._chars[0] += len(part.text)
                            yield ContentEvent(part.text)
                    if cand.citation_metadata and cand.citation_metadata.citation_sources:
                        for src in cand.citation_metadata.citation_sources:
                            if src.uri and src.uri not in citations:
                                citations.append(src.uri)
                    if cand.finish_reason:
                        self.finish_reason = cand.finish_reason
            # a cancel that lands after the stream completed is the executor's to honour:
            # the answer (and any calls in it) is already in history and must be answered
        except StreamError as exc:
            yield InvalidStreamEvent(str(exc))
            return
        except GemtuiError as exc:
            yield ErrorEvent(exc)
            return
        except Exception as exc:  # a provider bug or an odd payload: an error, not a crash
            yield ErrorEvent(exc)
            return
        finally:
            await stream.aclose()
        for subject, text in headings.flush():
            yield ThoughtEvent(text, subject)
        for uri in citations:
            yield CitationEvent(uri)
        self.usage = usage_from_metadata(meta)
        yield FinishedEvent(self.finish_reason, self.usage, finish_message(self.finish_reason))
