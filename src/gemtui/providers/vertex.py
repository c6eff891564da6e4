"""Gemini on Vertex AI: the Gemini API's wire at another address, with another credential.

Why a subclass and not an adapter of its own: Vertex's ``streamGenerateContent``,
``generateContent`` and ``countTokens`` take and return exactly the Gemini API's bodies
(thoughts, tools, grounding included), so only the URL and the auth header differ.

- Project mode (``GOOGLE_CLOUD_PROJECT`` + ``GOOGLE_CLOUD_LOCATION``):
  ``{host}/v1/projects/{p}/locations/{l}/publishers/google/models/{m}:{method}`` with a
  Bearer token from Application Default Credentials (``gemtui.auth.adc``). The host is
  ``aiplatform.googleapis.com`` for the ``global`` location, else ``{l}-aiplatform…``.
- Express mode (``GOOGLE_API_KEY`` alone): the project-less
  ``{host}/v1/publishers/google/models/{m}:{method}``, the key in ``x-goog-api-key``.

``GOOGLE_VERTEX_BASE_URL`` (or the provider's ``base_url``) replaces the host.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gemtui.errors import ApiError
from gemtui.providers.base import Capabilities
from gemtui.providers.gemini import GeminiGenerator
from gemtui.wire import ModelInfo

if TYPE_CHECKING:
    import httpx

    from gemtui.providers.code_assist import AccessTokens

__all__ = ["VERTEX_MODELS", "VertexGenerator", "vertex_host", "vertex_ids_problem"]

VERTEX_MODELS = ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite")
"""Offered when asked for a listing (Vertex lists publisher models per region only)."""


def vertex_ids_problem(project: str, location: str) -> str:
    """Why ``project`` or ``location`` cannot be used ("" when both can): both go into the
    address the Bearer token is sent to, so anything but an id is refused."""
    if re.fullmatch(r"[a-z0-9-]+", location) and re.fullmatch(r"[a-z0-9.:-]+", project):
        return ""
    return (
        f"GOOGLE_CLOUD_PROJECT={project!r} / GOOGLE_CLOUD_LOCATION={location!r}: a project "
        "id and a region are lower-case letters, digits and dashes."
    )


def vertex_host(location: str) -> str:
    """The regional endpoint, or the global one for ``global`` (and express mode)."""
    if not location or location == "global":
        return "https://aiplatform.googleapis.com"
    return f"https://{location}-aiplatform.googleapis.com"


class VertexGenerator(GeminiGenerator):
    """ContentGenerator over Vertex AI's ``publishers/google/models/{model}:…``."""

    name = "vertex"
    capabilities = Capabilities(
        thought_signatures=True, thinking_config=True, grounding=True, images=True
    )

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        tokens: AccessTokens | None = None,
        api_key: str = "",
        project: str = "",
        location: str = "",
        base_url: str | None = None,
    ) -> None:
        if (tokens is None) == (not api_key):
            raise ValueError("Vertex AI takes either ADC tokens (project mode) or an API key")
        location = location or "global"
        super().__init__(client, api_key, base_url or vertex_host(location if tokens else ""))
        self._tokens = tokens
        self._scope = f"projects/{project}/locations/{location}/" if tokens is not None else ""
        self.project = project
        self.location = location

    @property
    def express(self) -> bool:
        """Express mode: an API key and no project."""
        return self._tokens is None

    def _url(self, model: str, method: str) -> str:
        model_id = model.removeprefix("models/").removeprefix("publishers/google/models/")
        return f"{self._base}/v1/{self._scope}publishers/google/models/{model_id}:{method}"

    async def _headers(self) -> dict[str, str]:
        if self._tokens is None:
            return {"x-goog-api-key": self._api_key}
        return {"authorization": f"Bearer {await self._tokens.token()}"}

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        raise ApiError(400, "gemtui does not ask Vertex AI for embeddings; use a Gemini API key.")

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(name=f"models/{m}", display_name=m) for m in VERTEX_MODELS]
