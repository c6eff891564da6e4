"""Pure mapping between Gemini-shaped requests/responses and the Anthropic Messages API.

The API wants strictly alternating roles (consecutive same-role messages are merged),
``tool_result`` blocks first in the user message after the ``tool_use``, thinking blocks
sent back with their signature, and ``max_tokens`` always. Streams are events:
message_start / content_block_* / message_delta / message_stop.
"""

from __future__ import annotations

import json
import re
from typing import Any

from msgspec import Struct, field

from gemtui.errors import ApiError, api_error_from_response
from gemtui.providers.convert_openai import (
    CallIds,
    declarations_of,
    make_response,
    parameters_of,
    system_text,
)
from gemtui.providers.sse import check_held
from gemtui.providers.text_tools import function_response_text
from gemtui.wire import (
    Content,
    FunctionCall,
    GenerateContentRequest,
    GenerateContentResponse,
    Part,
    UsageMetadata,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "AnthropicStream",
    "error_from_event",
    "from_anthropic_message",
    "stop_from_anthropic",
    "to_anthropic_messages",
    "to_anthropic_request",
]

DEFAULT_MAX_TOKENS = 8192
_STOP = {
    "end_turn": "STOP",
    "stop_sequence": "STOP",
    "tool_use": "STOP",
    "pause_turn": "STOP",
    "max_tokens": "MAX_TOKENS",
    "model_context_window_exceeded": "MAX_TOKENS",
    "refusal": "SAFETY",
}
_TOOL_CHOICE = {"ANY": {"type": "any"}, "NONE": {"type": "none"}, "AUTO": {"type": "auto"}}
_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
_BAD_ID = re.compile(r"[^a-zA-Z0-9_-]")


def _tool_id(raw: str) -> str:
    """Tool ids must match ``^[a-zA-Z0-9_-]+$``; map others the same way both sides."""
    return _BAD_ID.sub("_", raw) or "tool"


def _assistant_blocks(content: Content, ids: CallIds) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    thinking: list[str] = []
    for part in content.parts:
        if part.thought:
            if part.text:
                thinking.append(part.text)
            if part.thought_signature:  # a block is only valid with its signature
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": "".join(thinking),
                        "signature": part.thought_signature,
                    }
                )
                thinking = []
            continue
        thinking = []
        if part.function_call is not None:
            fc = part.function_call
            blocks.append(
                {"type": "tool_use", "id": ids.for_call(fc), "name": fc.name, "input": fc.args}
            )
        elif part.text:
            blocks.append({"type": "text", "text": part.text})
    return blocks


def _user_blocks(content: Content, ids: CallIds) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    blocks: list[dict[str, Any]] = []
    for part in content.parts:
        fr = part.function_response
        if fr is not None:
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": ids.for_result(fr.id, fr.name),
                "content": function_response_text(fr),
            }
            if "error" in fr.response:
                result["is_error"] = True
            results.append(result)
        elif part.thought:
            continue
        elif part.text:
            blocks.append({"type": "text", "text": part.text})
        elif part.inline_data is not None:
            source = {
                "type": "base64",
                "media_type": part.inline_data.mime_type,
                "data": part.inline_data.data,
            }
            kind = "document" if part.inline_data.mime_type == "application/pdf" else "image"
            blocks.append({"type": kind, "source": source})
        elif part.file_data is not None:
            blocks.append({"type": "text", "text": f"[file: {part.file_data.file_uri}]"})
    return results + blocks


def to_anthropic_messages(contents: list[Content]) -> list[dict[str, Any]]:
    """Messages with alternating roles, tool results first in each user message."""
    ids = CallIds("toolu", _tool_id)
    messages: list[dict[str, Any]] = []
    for content in contents:
        role = "assistant" if content.role == "model" else "user"
        blocks = (
            _assistant_blocks(content, ids) if role == "assistant" else _user_blocks(content, ids)
        )
        if not blocks:
            continue
        if messages and messages[-1]["role"] == role:
            merged = messages[-1]["content"] + blocks
            if role == "user":  # results must lead the message that answers the calls
                merged.sort(key=lambda b: b["type"] != "tool_result")
            messages[-1]["content"] = merged
        else:
            messages.append({"role": role, "content": blocks})
    if messages and messages[0]["role"] != "user":
        messages.insert(0, {"role": "user", "content": [{"type": "text", "text": "(continue)"}]})
    return messages


def to_anthropic_request(
    request: GenerateContentRequest, model: str, *, stream: bool = True
) -> dict[str, Any]:
    cfg = request.generation_config
    max_tokens = (cfg.max_output_tokens if cfg else None) or DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": to_anthropic_messages(request.contents),
    }
    if stream:
        body["stream"] = True
    system = system_text(request)
    if system:
        body["system"] = system
    decls = declarations_of(request)
    if decls:
        body["tools"] = [
            {"name": d.name, "description": d.description, "input_schema": parameters_of(d)}
            for d in decls
        ]
        fcc = request.tool_config.function_calling_config if request.tool_config else None
        if fcc is not None and fcc.mode in _TOOL_CHOICE:
            body["tool_choice"] = _TOOL_CHOICE[fcc.mode]
    if cfg is not None:
        budget = cfg.thinking_config.thinking_budget if cfg.thinking_config else None
        if budget and budget > 0:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
            body["max_tokens"] = max(max_tokens, budget + 1024)
        else:
            for src, dst in ((cfg.temperature, "temperature"), (cfg.top_p, "top_p")):
                if src is not None:
                    body[dst] = src
        if cfg.top_k is not None:
            body["top_k"] = cfg.top_k
        if cfg.stop_sequences:
            body["stop_sequences"] = cfg.stop_sequences
    return body


def count_tokens_body(contents: list[Content], model: str) -> dict[str, Any]:
    return {"model": model, "messages": to_anthropic_messages(contents)}


# -- responses --------------------------------------------------------------------------


def stop_from_anthropic(reason: str | None) -> str | None:
    if reason is None:
        return None
    return _STOP.get(reason, "OTHER")


def error_from_event(data: dict[str, Any]) -> ApiError:
    """An ``error`` event as the ApiError its type stands for (overloaded → 529, …)."""
    err = data.get("error") if isinstance(data.get("error"), dict) else {}
    status = _ERROR_STATUS.get(str(err.get("type")), 500) if isinstance(err, dict) else 500
    return api_error_from_response(status, json.dumps(data))


class _Block(Struct):
    kind: str
    id: str = ""
    name: str = ""
    json: list[str] = field(default_factory=list)


class AnthropicStream(Struct):
    """State of one streamed message: feed each event, then ``final()``."""

    blocks: dict[int, _Block] = field(default_factory=dict)
    calls: list[Part] = field(default_factory=list)
    malformed: bool = False
    stop: str | None = None
    input_tokens: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output_tokens: int = 0
    seen_usage: bool = False
    held: int = 0
    """Characters of tool input held until its block ends (bounded by ``check_held``)."""

    def feed(self, event: dict[str, Any]) -> list[Part]:
        kind = event.get("type")
        if kind == "message_start":
            self._usage((event.get("message") or {}).get("usage") or {})
        elif kind == "content_block_start":
            return self._start(int(event.get("index", 0)), event.get("content_block") or {})
        elif kind == "content_block_delta":
            return self._delta(int(event.get("index", 0)), event.get("delta") or {})
        elif kind == "content_block_stop":
            self._stop(int(event.get("index", 0)))
        elif kind == "message_delta":
            self.stop = (event.get("delta") or {}).get("stop_reason") or self.stop
            self._usage(event.get("usage") or {})
        elif kind == "error":
            raise error_from_event(event)
        return []

    def _usage(self, usage: dict[str, Any]) -> None:
        if not usage:
            return
        self.seen_usage = True
        self.input_tokens = int(usage.get("input_tokens") or self.input_tokens)
        self.cache_read = int(usage.get("cache_read_input_tokens") or self.cache_read)
        self.cache_write = int(usage.get("cache_creation_input_tokens") or self.cache_write)
        self.output_tokens = int(usage.get("output_tokens") or self.output_tokens)

    def _start(self, index: int, block: dict[str, Any]) -> list[Part]:
        kind = str(block.get("type"))
        self.blocks[index] = _Block(kind, str(block.get("id", "")), str(block.get("name", "")))
        if kind == "text" and block.get("text"):
            return [Part(text=block["text"])]
        if kind == "thinking" and block.get("thinking"):
            return [Part(text=block["thinking"], thought=True)]
        if kind == "tool_use" and block.get("input"):
            self._hold(self.blocks[index], json.dumps(block["input"]))
        return []

    def _hold(self, block: _Block, piece: str) -> None:
        block.json.append(piece)
        self.held += len(piece)
        check_held(self.held)

    def _delta(self, index: int, delta: dict[str, Any]) -> list[Part]:
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            return [Part(text=delta["text"])]
        if kind == "thinking_delta" and delta.get("thinking"):
            return [Part(text=delta["thinking"], thought=True)]
        if kind == "signature_delta" and delta.get("signature"):
            return [Part(text="", thought=True, thought_signature=delta["signature"])]
        if kind == "input_json_delta":
            block = self.blocks.get(index)
            if block is not None:
                self._hold(block, str(delta.get("partial_json") or ""))
        return []

    def _stop(self, index: int) -> None:
        block = self.blocks.get(index)
        if block is None or block.kind != "tool_use":
            return
        raw = "".join(block.json)
        try:
            args = json.loads(raw) if raw.strip() else {}
        except ValueError:
            args = None
        if not isinstance(args, dict) or not block.name:
            self.malformed = True
            return
        call = FunctionCall(id=block.id or None, name=block.name, args=args)
        self.calls.append(Part(function_call=call))

    def usage(self) -> UsageMetadata | None:
        """Gemini's prompt count includes cached tokens; Anthropic's input_tokens does not."""
        if not self.seen_usage:
            return None
        prompt = self.input_tokens + self.cache_read + self.cache_write
        return UsageMetadata(
            prompt_token_count=prompt,
            candidates_token_count=self.output_tokens,
            cached_content_token_count=self.cache_read or None,
            total_token_count=prompt + self.output_tokens,
        )

    def final(self) -> GenerateContentResponse:
        finish = stop_from_anthropic(self.stop)
        parts: list[Part] = []
        if self.malformed:
            finish = "MALFORMED_FUNCTION_CALL"
        elif finish is not None:
            parts = list(self.calls)
        return make_response(parts, finish, self.usage())


def from_anthropic_message(data: dict[str, Any]) -> GenerateContentResponse:
    """A non-streaming ``message`` as one response."""
    state = AnthropicStream()
    state.feed({"type": "message_start", "message": {"usage": data.get("usage") or {}}})
    parts: list[Part] = []
    for i, block in enumerate(data.get("content") or []):
        if block.get("type") == "tool_use":
            state.feed({"type": "content_block_start", "index": i, "content_block": block})
        elif block.get("type") == "thinking":
            parts.append(
                Part(
                    text=block.get("thinking", ""),
                    thought=True,
                    thought_signature=block.get("signature"),
                )
            )
        else:
            parts.extend(
                state.feed({"type": "content_block_start", "index": i, "content_block": block})
            )
        state.feed({"type": "content_block_stop", "index": i})
    state.stop = data.get("stop_reason")
    final = state.final()
    cand = final.candidates[0] if final.candidates else None
    tail = list(cand.content.parts) if cand and cand.content else []
    return make_response(parts + tail, cand.finish_reason if cand else None, final.usage_metadata)
