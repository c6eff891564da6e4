"""The Gemini API (Generative Language API) with an API key.

The key travels only in the ``x-goog-api-key`` header, never in the URL, so it cannot
leak into logs or error messages that quote URLs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

import httpx

from gemtui.errors import TransportError
from gemtui.providers.base import Capabilities
from gemtui.providers.gemini_frames import is_answer_text, parse_frames
from gemtui.providers.http import Preconnects, get_json, open_stream, post_json
from gemtui.providers.sse import read_frames_ahead
from gemtui.wire import (
    Content,
    CountTokensResponse,
    GenerateContentRequest,
    GenerateContentResponse,
    ModelInfo,
)
from gemtui.wire.schema import for_gemini

__all__ = ["DEFAULT_GEMINI_BASE_URL", "GeminiGenerator", "gemini_body"]

DEFAULT_GEMINI_BASE_URL = "https://generativelanguage.googleapis.com"


def gemini_body(request: GenerateContentRequest) -> dict[str, Any]:
    """The request as Gemini takes it: each tool's JSON Schema narrowed to the keywords
    Gemini documents (an MCP server's ``default`` or ``pattern`` would be refused)."""
    body = request.to_wire()
    for tool in body.get("tools") or []:
        for decl in tool.get("functionDeclarations") or []:
            schema = decl.get("parametersJsonSchema")
            if isinstance(schema, dict):
                decl["parametersJsonSchema"] = for_gemini(schema)
    return body


class GeminiGenerator(Preconnects):
    """ContentGenerator over ``/v1beta/models/{model}:…``."""

    name = "gemini"
    capabilities = Capabilities(
        thought_signatures=True, thinking_config=True, grounding=True, images=True
    )

    def __init__(
        self, client: httpx.AsyncClient, api_key: str, base_url: str | None = None
    ) -> None:
        self._client = client
        self._api_key = api_key
        self._base = (base_url or DEFAULT_GEMINI_BASE_URL).rstrip("/")

    def _url(self, model: str, method: str) -> str:
        model_id = model.removeprefix("models/")
        return f"{self._base}/v1beta/models/{model_id}:{method}"

    async def _headers(self) -> dict[str, str]:
        """Per request: a subclass may fetch a fresh token here (Vertex AI)."""
        return {"x-goog-api-key": self._api_key}

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        data = await post_json(
            self._client,
            self._url(model, "generateContent"),
            gemini_body(request),
            await self._headers(),
        )
        return GenerateContentResponse.model_validate(data)

    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        url = self._url(model, "streamGenerateContent") + "?alt=sse"
        async with open_stream(
            self._client, url, gemini_body(request), await self._headers()
        ) as response:
            try:
                first = True
                async with aclosing(read_frames_ahead(response)) as batches:
                    async for batch in batches:
                        frames = (data for _event, data in batch)
                        for chunk in parse_frames(frames, first_alone=first):
                            first = first and not is_answer_text(chunk)
                            yield chunk
            except httpx.TransportError as exc:
                raise TransportError(f"{type(exc).__name__} while streaming: {exc}") from exc

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        body = {"contents": [c.to_wire() for c in contents]}
        data = await post_json(
            self._client, self._url(model, "countTokens"), body, await self._headers()
        )
        return CountTokensResponse.model_validate(data).total_tokens

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        model_id = model.removeprefix("models/")
        body = {
            "requests": [
                {"model": f"models/{model_id}", "content": {"parts": [{"text": t}]}} for t in texts
            ]
        }
        data = await post_json(
            self._client, self._url(model, "batchEmbedContents"), body, await self._headers()
        )
        return [e.get("values", []) for e in data.get("embeddings", [])]

    async def list_models(self) -> list[ModelInfo]:
        data = await get_json(self._client, f"{self._base}/v1beta/models", await self._headers())
        return [ModelInfo.model_validate(m) for m in data.get("models", [])]

    async def aclose(self) -> None:
        await self._client.aclose()
