"""Any OpenAI-compatible chat-completions server: OpenAI, vLLM, Ollama, llama.cpp, LM Studio.

The base URL includes ``/v1`` (as the OpenAI SDK's does); the key is optional because
local servers need none. Text and thought deltas are passed on as they arrive; tool
calls are reassembled by index and handed over with the finish reason in the last chunk.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

import httpx

from gemtui.errors import StreamError, TransportError, api_error_from_response
from gemtui.providers.base import Capabilities
from gemtui.providers.constrained_tools import constrain, server_constrains_tools, unwrap_answer
from gemtui.providers.convert_openai import (
    LoopWatch,
    OpenAIStream,
    declarations_of,
    from_openai_completion,
    make_response,
    to_openai_request,
)
from gemtui.providers.http import Preconnects, get_json, open_stream, post_json
from gemtui.providers.model_family import no_think_switch, opens_thought_in_prompt, with_no_think
from gemtui.providers.part_runs import stream_parts
from gemtui.providers.rate_limits import RateLimitListener, rate_limits_from_headers
from gemtui.providers.sse import parse_json
from gemtui.providers.think_tags import ThinkSplitter
from gemtui.wire import Content, GenerateContentRequest, GenerateContentResponse, ModelInfo, Part
from gemtui.wire.token_estimate import estimate_tokens

__all__ = ["DEFAULT_OPENAI_BASE_URL", "OpenAICompatGenerator"]

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAICompatGenerator(Preconnects):
    """ContentGenerator over ``{base}/chat/completions``."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str | None = None,
        api_key: str | None = None,
        name: str = "openai",
        *,
        no_think: bool = False,
        constrained_tools: str = "off",
        loop_watch: Callable[[], LoopWatch] | None = None,
    ) -> None:
        self._client = client
        self._base = (base_url or DEFAULT_OPENAI_BASE_URL).rstrip("/")
        self._api_key = api_key
        self.name = name
        # OpenAI's own models take images; a local or other server's model often does not,
        # and what it does with an image it cannot read is unknown: images go only to OpenAI.
        self.capabilities = Capabilities(images=self._base == DEFAULT_OPENAI_BASE_URL)
        self.no_think = no_think
        """Switch thinking off for models whose family has a switch (Qwen3's /no_think)."""
        self.constrained_tools = constrained_tools
        """The setting: on, off, or auto (``decide_constrained_tools`` asks the server)."""
        self.constrained = constrained_tools == "on"
        """Whether requests with tools require a call, ``final_answer`` included."""
        self.loop_watch = loop_watch
        """Makes the check each held-back answer's raw text goes through (``LoopWatch``)."""
        self.on_rate_limits: RateLimitListener | None = None
        """Told the ``x-ratelimit-*`` figures of each answer that carries them."""

    def _note_limits(self, headers: httpx.Headers) -> None:
        if self.on_rate_limits is not None:
            limits = rate_limits_from_headers(headers, self.name)
            if limits is not None:
                self.on_rate_limits(limits)

    def _body(self, request: GenerateContentRequest, model: str, *, stream: bool) -> dict[str, Any]:
        switch = no_think_switch(model) if self.no_think else None
        if switch:
            request = with_no_think(request, switch)
        return to_openai_request(request, model, stream=stream)

    @property
    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        if self.constrained:
            request = constrain(request)
        body = self._body(request, model, stream=False)
        url = f"{self._base}/chat/completions"
        data = await post_json(self._client, url, body, self._headers, on_headers=self._note_limits)
        response = from_openai_completion(data, _names(request))
        return unwrap_answer(response) if self.constrained else response

    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        if self.constrained:
            request = constrain(request)
        body = self._body(request, model, stream=True)
        url = f"{self._base}/chat/completions"
        think = ThinkSplitter(opened=opens_thought_in_prompt(model))
        watch = self.loop_watch() if self.loop_watch is not None else None
        state = OpenAIStream(think=think, call_names=_names(request), watch=watch)

        def feed(_event: str, raw: bytes, parts: list[Part]) -> bool:
            if raw.strip() == b"[DONE]":
                return True
            data = parse_json(raw)
            if not isinstance(data, dict):
                raise StreamError(f"unexpected frame: {str(data)[:120]}", kind="malformed")
            if "error" in data:  # some servers report failures inside the stream
                raise _stream_error(data)
            parts.extend(state.feed(data))
            return False

        async with open_stream(self._client, url, body, self._headers) as response:
            self._note_limits(response.headers)
            try:
                async with aclosing(stream_parts(response, feed)) as batches:
                    async for parts in batches:
                        yield make_response(parts)
            except httpx.TransportError as exc:
                raise TransportError(f"{type(exc).__name__} while streaming: {exc}") from exc
        final = state.final()
        yield unwrap_answer(final) if self.constrained else final

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        """The one estimate (``wire.token_estimate``): these servers offer no count endpoint."""
        return estimate_tokens(contents)

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        body = {"model": model, "input": texts}
        data = await post_json(self._client, f"{self._base}/embeddings", body, self._headers)
        items = sorted(data.get("data", []), key=lambda d: d.get("index", 0))
        return [list(d.get("embedding", [])) for d in items]

    async def list_models(self) -> list[ModelInfo]:
        data = await get_json(self._client, f"{self._base}/models", self._headers)
        items = data.get("data", []) if isinstance(data, dict) else []
        return [ModelInfo(name=m["id"], display_name=m["id"]) for m in items if "id" in m]

    async def learn_context_window(self, model: str) -> int | None:
        """The window the server says it serves ``model`` with (local servers only: the
        OpenAI API itself says nothing, so it is not asked)."""
        if self._base == DEFAULT_OPENAI_BASE_URL:
            return None
        from gemtui.providers.context_probe import probe_context_window

        return await probe_context_window(self._client, self._base, model, self._headers)

    async def decide_constrained_tools(self, compact: bool) -> bool:
        """Settle ``auto``: constrain when the tools are described compactly (a small
        window, so a small model) and the server decodes under a grammar."""
        if self.constrained_tools == "auto":
            self.constrained = compact and await server_constrains_tools(
                self._client, self._base, self._headers
            )
        return self.constrained

    async def aclose(self) -> None:
        await self._client.aclose()


def _names(request: GenerateContentRequest) -> list[str]:
    return [d.name for d in declarations_of(request)]


def _stream_error(data: dict[str, Any]) -> Exception:
    err = data.get("error")
    code = err.get("code") if isinstance(err, dict) else None
    status = code if isinstance(code, int) and 400 <= code < 600 else 500
    return api_error_from_response(status, json.dumps(data))
