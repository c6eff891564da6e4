"""Anthropic's Messages API (Claude), streaming.

``ANTHROPIC_BASE_URL`` is the host, as in the Anthropic SDK; ``/v1/messages`` is appended.
The key goes in ``x-api-key`` with the ``anthropic-version`` header, never in a URL.
Extended thinking is asked of models that support it when the provider's
``thinking_budget`` is set. Thinking deltas become thought parts and the block's signature
arrives as an empty thought part carrying ``thought_signature``, so the thinking block can
be sent back.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

import httpx

from gemtui.errors import GemtuiError, StreamError, TransportError
from gemtui.providers.base import Capabilities
from gemtui.providers.convert_anthropic import (
    AnthropicStream,
    count_tokens_body,
    from_anthropic_message,
    to_anthropic_request,
)
from gemtui.providers.convert_openai import make_response
from gemtui.providers.http import Preconnects, get_json, open_stream, post_json
from gemtui.providers.part_runs import stream_parts
from gemtui.providers.rate_limits import RateLimitListener, rate_limits_from_headers
from gemtui.providers.sse import parse_json
from gemtui.wire import Content, GenerateContentRequest, GenerateContentResponse, ModelInfo, Part

__all__ = [
    "ANTHROPIC_VERSION",
    "DEFAULT_ANTHROPIC_BASE_URL",
    "AnthropicGenerator",
    "supports_thinking",
]

DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"


_VERSION = re.compile(r"claude-(?:[a-z]+-)?(\d+)(?:[-.](\d+))?")


def supports_thinking(model: str) -> bool:
    """Claude 3.7 and every Claude 4 model (Sonnet, Opus, Haiku) think when asked;
    earlier ones refuse the ``thinking`` field, so it is never sent to them."""
    match = _VERSION.search(model.lower())
    if match is None:
        return False
    major, minor = int(match.group(1)), int(match.group(2) or 0)
    return major >= 4 or (major == 3 and minor == 7)


class AnthropicGenerator(Preconnects):
    """ContentGenerator over ``{base}/v1/messages``."""

    capabilities = Capabilities(keeps_thought_text=True, images=True)
    """Thinking blocks go back with their text and signature: history must keep both."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str | None = None,
        api_key: str = "",
        name: str = "anthropic",
        *,
        thinking_budget: int = 0,
    ) -> None:
        self._client = client
        self._base = (base_url or DEFAULT_ANTHROPIC_BASE_URL).rstrip("/")
        self._api_key = api_key
        self.name = name
        self.thinking_budget = thinking_budget
        """Tokens of extended thinking asked of models that support it (0: none)."""
        self.on_rate_limits: RateLimitListener | None = None
        """Told the ``anthropic-ratelimit-*`` figures of each answer that carries them."""

    def _note_limits(self, headers: httpx.Headers) -> None:
        if self.on_rate_limits is not None:
            limits = rate_limits_from_headers(headers, self.name)
            if limits is not None:
                self.on_rate_limits(limits)

    def _body(self, request: GenerateContentRequest, model: str, *, stream: bool) -> dict[str, Any]:
        body = to_anthropic_request(request, model, stream=stream)
        # the API refuses thinking with a forced tool, and a budget given in the request
        # (thinking_config) already made its own
        forced = body.get("tool_choice", {}).get("type") in ("any", "tool")
        wanted = self.thinking_budget and "thinking" not in body and not forced
        if wanted and supports_thinking(model):
            body["thinking"] = {"type": "enabled", "budget_tokens": self.thinking_budget}
            body["max_tokens"] = max(body["max_tokens"], self.thinking_budget + 1024)
            body.pop("temperature", None)  # thinking takes neither
            body.pop("top_p", None)
        return body

    @property
    def _headers(self) -> dict[str, str]:
        return {"x-api-key": self._api_key, "anthropic-version": ANTHROPIC_VERSION}

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        body = self._body(request, model, stream=False)
        url = f"{self._base}/v1/messages"
        data = await post_json(self._client, url, body, self._headers, on_headers=self._note_limits)
        return from_anthropic_message(data)

    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        body = self._body(request, model, stream=True)
        state = AnthropicStream()
        url = f"{self._base}/v1/messages"

        def feed(name: str, raw: bytes, parts: list[Part]) -> bool:
            event = parse_json(raw)
            if not isinstance(event, dict):
                raise StreamError("unexpected event shape", kind="malformed")
            if "type" not in event and name:
                event = {**event, "type": name}
            parts.extend(state.feed(event))
            return bool(event.get("type") == "message_stop")

        async with open_stream(self._client, url, body, self._headers) as response:
            self._note_limits(response.headers)
            try:
                async with aclosing(stream_parts(response, feed)) as batches:
                    async for parts in batches:
                        yield make_response(parts)
            except httpx.TransportError as exc:
                raise TransportError(f"{type(exc).__name__} while streaming: {exc}") from exc
        yield state.final()

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        url = f"{self._base}/v1/messages/count_tokens"
        data = await post_json(self._client, url, count_tokens_body(contents, model), self._headers)
        return int(data.get("input_tokens", 0))

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        raise GemtuiError("The Anthropic API offers no embeddings; use another provider.")

    async def list_models(self) -> list[ModelInfo]:
        data = await get_json(self._client, f"{self._base}/v1/models", self._headers)
        items = data.get("data", []) if isinstance(data, dict) else []
        return [
            ModelInfo(name=m["id"], display_name=m.get("display_name") or m["id"])
            for m in items
            if "id" in m
        ]

    async def aclose(self) -> None:
        await self._client.aclose()
