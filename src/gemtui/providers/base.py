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

from msgspec import Struct

from gemtui.wire import Content, GenerateContentRequest, GenerateContentResponse, ModelInfo

__all__ = ["Capabilities", "ContentGenerator", "aclose_stream"]


class Capabilities(Struct, frozen=True):
    """What a provider's API needs or offers beyond the common protocol; declared by the
    provider so the engine never guesses from its name."""

    thought_signatures: bool = False
    """Calls carry thought signatures that must be sent back (Gemini)."""
    keeps_thought_text: bool = False
    """Thinking text must go back in the history (Anthropic's signed thinking blocks)."""
    thinking_config: bool = False
    """The request takes ``thinkingConfig`` (Gemini), so thoughts are asked for."""
    grounding: bool = False
    """The ``googleSearch`` tool is available (google_web_search)."""
    images: bool = False
    """The person's prompt may carry images as inline data (false: say so, send none)."""


@runtime_checkable
class ContentGenerator(Protocol):
    """A model API, seen through Gemini's request and response types."""

    name: str
    """The provider's name, as in ``--provider`` and the settings."""

    capabilities: Capabilities
    """What this API needs or offers (wrappers pass on their inner provider's)."""

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
