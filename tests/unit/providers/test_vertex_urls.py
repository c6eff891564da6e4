"""Vertex AI's addresses: the regional host for a region, the global one for ``global`` and
express mode, the project path only with a project (requests caught by httpx's own
``MockTransport``, standing in for Google's API)."""

from __future__ import annotations

import httpx
import pytest

from gemtui.auth.refresh import TokenSource
from gemtui.providers.vertex import VertexGenerator
from gemtui.testing.mock_oauth import MockAccount
from gemtui.wire import Content, Part


async def _counted_at(gen: VertexGenerator, seen: list[httpx.Request]) -> httpx.Request:
    contents = [Content(role="user", parts=[Part(text="hi")])]
    assert await gen.count_tokens(contents, model="gemini-2.5-flash") == 3
    await gen.aclose()
    (request,) = seen
    return request


def _client(seen: list[httpx.Request]) -> httpx.AsyncClient:
    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"totalTokens": 3})

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


@pytest.mark.parametrize(
    ("location", "host"),
    [
        ("us-central1", "https://us-central1-aiplatform.googleapis.com"),
        ("global", "https://aiplatform.googleapis.com"),
        ("", "https://aiplatform.googleapis.com"),
    ],
)
async def test_project_mode_uses_the_locations_host_and_a_bearer_token(
    location: str, host: str
) -> None:
    seen: list[httpx.Request] = []
    tokens = TokenSource(MockAccount().grant())
    gen = VertexGenerator(_client(seen), tokens=tokens, project="p", location=location)
    request = await _counted_at(gen, seen)
    where = location or "global"
    assert str(request.url) == (
        f"{host}/v1/projects/p/locations/{where}/publishers/google/models/"
        "gemini-2.5-flash:countTokens"
    )
    assert request.headers["authorization"] == f"Bearer {tokens.tokens.access_token}"
    assert "x-goog-api-key" not in request.headers


async def test_express_mode_is_project_less_with_the_key_in_a_header() -> None:
    seen: list[httpx.Request] = []
    gen = VertexGenerator(_client(seen), api_key="express-key")
    request = await _counted_at(gen, seen)
    assert str(request.url) == (
        "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:countTokens"
    )
    assert request.headers["x-goog-api-key"] == "express-key"
    assert "authorization" not in request.headers


def test_either_tokens_or_a_key() -> None:
    with pytest.raises(ValueError, match="either"):
        VertexGenerator(httpx.AsyncClient(), api_key="")
