"""Gemini through a Google account: the Code Assist backend (``cloudcode-pa``'s ``v1internal``).

Why its own adapter: the same Gemini request travels inside an envelope (bare model id,
project, ``user_prompt_id``, ``session_id``) and comes back inside ``response``; the
project has to be discovered (or onboarded) before the first request; the Bearer token
expires and is refreshed once on a 401 without the person noticing.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from gemtui.errors import (
    AccountRefusedError,
    ApiError,
    FatalAuthenticationError,
    StreamError,
    TransportError,
)
from gemtui.providers.base import Capabilities
from gemtui.providers.gemini import gemini_body
from gemtui.providers.http import Preconnects, get_json, open_stream, post_json
from gemtui.providers.rate_limits import fraction
from gemtui.providers.sse import frame_text, iter_sse_data, malformed
from gemtui.wire import (
    Content,
    CountTokensResponse,
    GenerateContentRequest,
    GenerateContentResponse,
    ModelInfo,
)

__all__ = [
    "DEFAULT_CODE_ASSIST_ENDPOINT",
    "AccessTokens",
    "CodeAssistAccount",
    "CodeAssistGenerator",
    "QuotaBucket",
    "account_of",
]

DEFAULT_CODE_ASSIST_ENDPOINT = "https://cloudcode-pa.googleapis.com"
CLIENT_METADATA = {
    "ideType": "IDE_UNSPECIFIED",
    "platform": "PLATFORM_UNSPECIFIED",
    "pluginType": "GEMINI",
}
OPERATION_POLL = 2.0
"""Seconds between polls of the onboarding operation (Gemini CLI waits about as long)."""
OPERATION_LIMIT = 150
"""Polls before onboarding is given up (five minutes at the pace above)."""


class AccessTokens(Protocol):
    """A live Bearer token, and a fresh one after the server refused one (auth.refresh)."""

    async def token(self) -> str: ...

    async def rejected(self, token: str) -> str: ...


@dataclass(frozen=True)
class QuotaBucket:
    """One model's remaining share, as ``retrieveUserQuota`` reports it."""

    model: str
    remaining_fraction: float | None
    remaining_amount: str = ""
    reset_time: str = ""
    token_type: str = ""


@dataclass
class CodeAssistAccount:
    """What the backend said about the signed-in account; filled in by ``setup()``."""

    email: str = ""
    project: str = ""
    tier: str = ""
    tier_name: str = ""
    quota: tuple[QuotaBucket, ...] | None = None
    """None: unknown (never fetched, or the call failed) — never an invented number."""
    onboarded_now: bool = False
    notes: list[str] = field(default_factory=list)


class CodeAssistGenerator(Preconnects):
    """ContentGenerator over ``{endpoint}/v1internal:{method}`` with the Code Assist envelope."""

    name = "code-assist"
    capabilities = Capabilities(
        thought_signatures=True, thinking_config=True, grounding=True, images=True
    )

    def __init__(
        self,
        client: httpx.AsyncClient,
        tokens: AccessTokens,
        *,
        endpoint: str | None = None,
        project: str | None = None,
        email: str = "",
        on_progress: Callable[[str], None] | None = None,
    ) -> None:
        self._client = client
        self._tokens = tokens
        host = endpoint or os.environ.get("CODE_ASSIST_ENDPOINT") or DEFAULT_CODE_ASSIST_ENDPOINT
        self._base = host.rstrip("/") + "/v1internal"
        self._wanted_project = project if project is not None else _env_project()
        self.account = CodeAssistAccount(email=email)
        self.session_id = ""
        """Sent as ``request.session_id``; the session sets it to its own id."""
        self.on_progress = on_progress
        self._setup_lock = asyncio.Lock()
        self._ready = False

    # -- requests ---------------------------------------------------------------------------

    def _url(self, method: str) -> str:
        return f"{self._base}:{method}"

    async def _call(self, method: str, body: Any) -> Any:
        """POST with the Bearer token; a 401 refreshes the token once and tries again."""
        token = await self._tokens.token()
        try:
            return await post_json(self._client, self._url(method), body, _auth(token))
        except ApiError as exc:
            if exc.status != 401:
                raise
        token = await self._tokens.rejected(token)
        try:
            return await post_json(self._client, self._url(method), body, _auth(token))
        except ApiError as exc:
            if exc.status == 401:
                raise _signed_out() from exc
            raise

    def _envelope(
        self, request: GenerateContentRequest, model: str, prompt_id: str
    ) -> dict[str, Any]:
        inner = gemini_body(request)
        if self.session_id:
            inner["session_id"] = self.session_id
        return {
            "model": model.removeprefix("models/"),
            "project": self.account.project,
            "user_prompt_id": prompt_id,
            "request": inner,
        }

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        await self.setup()
        data = await self._call("generateContent", self._envelope(request, model, prompt_id))
        return _unwrap(data)

    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        await self.setup()
        url = self._url("streamGenerateContent") + "?alt=sse"
        body = self._envelope(request, model, prompt_id)
        token = await self._tokens.token()
        for attempt in (1, 2):
            try:
                async with (
                    open_stream(self._client, url, body, _auth(token)) as response,
                    aclosing(iter_sse_data(response)) as frames,
                ):
                    async for _event, data in frames:
                        yield _unwrap_frame(data)
                return
            except ApiError as exc:
                if exc.status != 401:
                    raise
                if attempt == 2:
                    raise _signed_out() from exc
                token = await self._tokens.rejected(token)
            except httpx.TransportError as exc:
                raise TransportError(f"{type(exc).__name__} while streaming: {exc}") from exc

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        model_id = model.removeprefix("models/")
        body = {
            "request": {"model": f"models/{model_id}", "contents": [c.to_wire() for c in contents]}
        }
        data = await self._call("countTokens", body)
        return CountTokensResponse.model_validate(data).total_tokens

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        raise ApiError(400, "Code Assist offers no embeddings; use a Gemini API key for them.")

    async def list_models(self) -> list[ModelInfo]:
        """Code Assist has no model listing: the Gemini models it is known to serve."""
        return [
            ModelInfo(name=f"models/{m}", display_name=m)
            for m in ("gemini-2.5-pro", "gemini-2.5-flash")
        ]

    async def aclose(self) -> None:
        await self._client.aclose()

    # -- the account ------------------------------------------------------------------------

    async def setup(self) -> CodeAssistAccount:
        """Find the project and tier once (onboarding a new user); single-flight."""
        if self._ready:
            return self.account
        async with self._setup_lock:
            if not self._ready:
                await self._discover()
                self._ready = True
        return self.account

    async def _discover(self) -> None:
        wanted = self._wanted_project
        body: dict[str, Any] = {"metadata": dict(CLIENT_METADATA)}
        if wanted:
            body["cloudaicompanionProject"] = wanted
            body["metadata"]["duetProject"] = wanted
        loaded = await self._call("loadCodeAssist", body)
        loaded = loaded if isinstance(loaded, dict) else {}
        current = loaded.get("currentTier")
        if isinstance(current, dict) and current.get("id"):
            self.account.tier = str(current["id"])
            self.account.tier_name = str(current.get("name") or "")
            found = _project_id(loaded.get("cloudaicompanionProject"))
            self.account.project = wanted or found
            if not self.account.project:
                raise _project_required(self.account.tier)
            return
        tier = _default_tier(loaded)
        tier_id = str(tier.get("id") or "legacy-tier")
        if tier.get("userDefinedCloudaicompanionProject") and not wanted:
            # refused for individuals, the tier left needs a project: say why, not "set one"
            refusal = _refusal(loaded)
            raise refusal if refusal is not None else _project_required(tier_id)
        self._progress("Setting up your Gemini Code Assist project…")
        onboard: dict[str, Any] = {"tierId": tier_id, "metadata": dict(CLIENT_METADATA)}
        if tier_id != "free-tier" and wanted:
            onboard["cloudaicompanionProject"] = wanted
            onboard["metadata"]["duetProject"] = wanted
        op = await self._call("onboardUser", onboard)
        polls = 0
        while not (isinstance(op, dict) and op.get("done")):
            polls += 1
            if polls > OPERATION_LIMIT or not (isinstance(op, dict) and op.get("name")):
                raise ApiError(
                    504, "Onboarding to Gemini Code Assist did not finish; try again later."
                )
            await asyncio.sleep(OPERATION_POLL)
            token = await self._tokens.token()
            op = await get_json(self._client, f"{self._base}/{op['name']}", _auth(token))
        response = op.get("response")
        response = response if isinstance(response, dict) else {}
        self.account.tier = tier_id
        self.account.tier_name = str(tier.get("name") or "")
        self.account.project = wanted or _project_id(response.get("cloudaicompanionProject"))
        self.account.onboarded_now = True
        if not self.account.project:
            raise _project_required(tier_id)

    async def refresh_quota(self) -> tuple[QuotaBucket, ...] | None:
        """Ask ``retrieveUserQuota``; a failure leaves the quota unknown (None)."""
        try:
            await self.setup()
            data = await self._call("retrieveUserQuota", {"project": self.account.project})
        except (ApiError, TransportError, StreamError):
            self.account.quota = None
            return None
        buckets = data.get("buckets") if isinstance(data, dict) else None
        if not isinstance(buckets, list):
            self.account.quota = None
            return None
        self.account.quota = tuple(_bucket(b) for b in buckets if isinstance(b, dict))
        return self.account.quota

    def _progress(self, text: str) -> None:
        if self.on_progress is not None:
            self.on_progress(text)


def account_of(generator: object) -> CodeAssistGenerator | None:
    """The Code Assist provider inside ``generator``'s wrappers (retry, text tools), if any."""
    seen = 0
    while generator is not None and seen < 8:
        if isinstance(generator, CodeAssistGenerator):
            return generator
        generator = getattr(generator, "inner", None)
        seen += 1
    return None


def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _env_project() -> str:
    return os.environ.get("GOOGLE_CLOUD_PROJECT") or os.environ.get("GOOGLE_CLOUD_PROJECT_ID") or ""


def _signed_out() -> FatalAuthenticationError:
    return FatalAuthenticationError(
        "Google refused the sign-in even after a refresh; run `gemtui auth login` again."
    )


def _project_required(tier: str) -> FatalAuthenticationError:
    return FatalAuthenticationError(
        f"Your Google account's Code Assist tier ({tier}) needs a Google Cloud project. "
        "Set one with `export GOOGLE_CLOUD_PROJECT=your-project-id` (a project with the "
        "Gemini for Google Cloud API enabled) and run gemtui again."
    )


def _project_id(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return str(value.get("id") or "")
    return ""


def _default_tier(loaded: dict[str, Any]) -> dict[str, Any]:
    tiers = [t for t in loaded.get("allowedTiers") or [] if isinstance(t, dict)]
    for tier in tiers:
        if tier.get("isDefault"):
            return tier
    refusal = _refusal(loaded)
    if not tiers and refusal is not None:
        raise refusal
    return {"id": "legacy-tier", "userDefinedCloudaicompanionProject": True}


WHAT_WORKS_INSTEAD = (
    "What works instead:\n"
    "  - a Gemini API key: export GEMINI_API_KEY=...  (https://aistudio.google.com/apikey)\n"
    "  - Vertex AI: export GOOGLE_GENAI_USE_VERTEXAI=true GOOGLE_CLOUD_PROJECT=your-project "
    "GOOGLE_CLOUD_LOCATION=us-central1  (Application Default Credentials), or "
    "GOOGLE_API_KEY alone for express mode\n"
    "  - Gemini Code Assist Standard or Enterprise (Workspace and Cloud accounts): export "
    "GOOGLE_CLOUD_PROJECT=your-project-id and run gemtui again\n"
    "  - another provider: --provider openai or anthropic, or a local server (see `gemtui "
    "--help`)"
)


def _refusal(loaded: dict[str, Any]) -> AccountRefusedError | None:
    """Google's refusal from ``ineligibleTiers`` (reason and code kept), or None."""
    ineligible = [t for t in loaded.get("ineligibleTiers") or [] if isinstance(t, dict)]
    if not ineligible:
        return None
    said = []
    for tier in ineligible:
        message = str(tier.get("reasonMessage") or "").strip() or "not eligible"
        code = str(tier.get("reasonCode") or "").strip()
        name = str(tier.get("tierName") or tier.get("tierId") or "").strip()
        said.append((f"{name}: " if name else "") + message + (f" ({code})" if code else ""))
    reason = "\n".join(said)
    return AccountRefusedError(
        f"Google refused this account for Gemini Code Assist:\n{reason}\n{WHAT_WORKS_INSTEAD}",
        reason=reason,
    )


def _bucket(raw: dict[str, Any]) -> QuotaBucket:
    return QuotaBucket(
        model=str(raw.get("modelId") or "?"),
        remaining_fraction=fraction(raw.get("remainingFraction")),
        remaining_amount=str(raw.get("remainingAmount") or ""),
        reset_time=str(raw.get("resetTime") or ""),
        token_type=str(raw.get("tokenType") or ""),
    )


def _unwrap(data: Any) -> GenerateContentResponse:
    """The Gemini response inside the envelope; no ``response`` means no candidates."""
    inner = data.get("response") if isinstance(data, dict) else None
    return GenerateContentResponse.model_validate(inner if isinstance(inner, dict) else {})


def _unwrap_frame(data: bytes) -> GenerateContentResponse:
    try:
        return _unwrap(json.loads(frame_text(data)))
    except ValueError as exc:
        raise malformed(data) from exc
