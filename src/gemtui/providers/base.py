"""The one protocol every model provider implements.

Contract:

- ``generate`` returns one whole response; ``stream`` yields partial responses in the
  Gemini shape (each chunk's parts are deltas) and ends after the chunk carrying
  ``finishReason``; the iterator must be closed (``aclose``) when abandoned.
- Errors: HTTP failures raise ``gemtui.errors.ApiError`` subclasses with the server's
  message; connection failures raise ``TransportError``; a stream that breaks after its
  first chunk raises ``StreamError``. Providers never retry: ``RetryingGenerator`` does.
- Cancellation is task cancellation; a cancelled stream closes its HTTP response.
- Providers take an injected ``httpx.AsyncClient`` and never log secrets.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from gemtui.wire import Content, GenerateContentRequest, GenerateContentResponse, ModelInfo

__all__ = ["ContentGenerator", "aclose_stream"]


@runtime_checkable
class ContentGenerator(Protocol):
    """A model API, seen through Gemini's request and response types."""

    name: str
    """The provider's name, as in ``--provider`` and the settings."""

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        """One complete response."""
        ...

    def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        """Partial responses as they arrive."""
        ...

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        """Tokens the contents would take in the model's context."""
        ...

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        """One embedding vector per text."""
        ...

    async def list_models(self) -> list[ModelInfo]:
        """Models this provider offers."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


async def aclose_stream(stream: AsyncIterator[object]) -> None:
    """Close an abandoned ``stream`` now (and its HTTP response), not whenever it is
    garbage-collected: until then its connection, and a flood on it, stay open."""
    close = getattr(stream, "aclose", None)
    if close is not None:
        await close()
