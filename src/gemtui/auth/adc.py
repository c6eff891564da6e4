"""Application Default Credentials for Vertex AI, through google-auth.

Why google-auth: it already knows every ADC source Gemini CLI accepts (a service-account
or authorized-user JSON named by ``GOOGLE_APPLICATION_CREDENTIALS``, gcloud's ADC file,
the metadata server), signs service-account assertions and posts them to the file's own
``token_uri``. Nothing here signs a JWT by hand. Tokens live in memory only: google-auth's
credentials are never serialised, so neither a private key nor a token reaches the disk.

google-auth's transport interface is synchronous; ours is an httpx client (no ``requests``
dependency), and every call that may touch the network runs in a worker thread so the
event loop never waits on it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any

import httpx
from google.auth import transport

from gemtui import redact
from gemtui.errors import FatalAuthenticationError

__all__ = ["CLOUD_PLATFORM", "AdcTokens", "HttpxRequest", "describe_adc"]

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"

NO_ADC = (
    "Vertex AI found no Application Default Credentials ({why}). Set "
    "GOOGLE_APPLICATION_CREDENTIALS to a service-account or authorized-user JSON file, or "
    "run `gcloud auth application-default login`; or use express mode with GOOGLE_API_KEY "
    "alone."
)


class _Response:
    """google-auth's view of one HTTP answer."""

    def __init__(self, response: httpx.Response) -> None:
        self.status = response.status_code
        self.headers = dict(response.headers)
        self.data = response.content


class HttpxRequest(transport.Request):
    """google-auth's ``transport.Request`` over a synchronous httpx client."""

    def __init__(self, timeout: float = 30.0) -> None:
        self._timeout = timeout

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> _Response:
        from google.auth import exceptions

        try:
            with httpx.Client(timeout=timeout or self._timeout) as client:
                answer = client.request(method, url, content=body, headers=dict(headers or {}))
        except httpx.HTTPError as exc:
            why = f"{type(exc).__name__}: {exc}"
            raise exceptions.TransportError(why) from exc  # type: ignore[no-untyped-call]
        return _Response(answer)


class AdcTokens:
    """A live Bearer token from ADC; refreshed (single-flight, off the loop) once
    google-auth says it is no longer valid, which it does ahead of the real expiry."""

    def __init__(self, request: HttpxRequest | None = None) -> None:
        self._request = request or HttpxRequest()
        self._credentials: Any = None
        self._lock = asyncio.Lock()
        self.refreshes = 0

    async def token(self) -> str:
        """A token google-auth still considers valid (it keeps a margin before expiry)."""
        async with self._lock:
            if self._credentials is None:
                self._credentials = await asyncio.to_thread(_load)
            if not self._credentials.valid:
                await self._refresh()
            return str(self._credentials.token)

    async def rejected(self, token: str) -> str:
        """The server answered 401 to ``token``: refresh once (unless another did)."""
        async with self._lock:
            if self._credentials is None or self._credentials.token == token:
                if self._credentials is None:
                    self._credentials = await asyncio.to_thread(_load)
                await self._refresh()
            return str(self._credentials.token)

    async def _refresh(self) -> None:
        from google.auth import exceptions

        try:
            await asyncio.to_thread(self._credentials.refresh, self._request)
        except exceptions.GoogleAuthError as exc:
            raise FatalAuthenticationError(
                f"Vertex AI: Google refused the Application Default Credentials ({_why(exc)}). "
                "Check GOOGLE_APPLICATION_CREDENTIALS, or run `gcloud auth "
                "application-default login` again."
            ) from exc
        self.refreshes += 1
        redact.register(str(self._credentials.token))  # masked should a server echo it


def _load() -> Any:
    """``google.auth.default()`` with the cloud-platform scope; missing ADC is exit 41."""
    import google.auth
    from google.auth import exceptions

    try:
        credentials, _project = google.auth.default(scopes=[CLOUD_PLATFORM])
    except exceptions.GoogleAuthError as exc:
        raise FatalAuthenticationError(NO_ADC.format(why=_why(exc))) from exc
    return credentials


def _why(exc: BaseException) -> str:
    """The library's reason on one line (it never contains a key or token)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:300]


def describe_adc() -> str:
    """Which ADC source Vertex AI would use, read from the files only: no token is
    fetched and nothing secret is returned (for ``gemtui auth status``)."""
    import json

    named = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    if named:
        where = f"GOOGLE_APPLICATION_CREDENTIALS={named}"
        path = named
    else:
        config = os.environ.get("CLOUDSDK_CONFIG") or os.path.join(
            os.path.expanduser("~"), ".config", "gcloud"
        )
        path = os.path.join(config, "application_default_credentials.json")
        if not os.path.isfile(path):
            return "the metadata server (no credentials file found; only works on Google Cloud)"
        where = f"gcloud's ADC file {path}"
    try:
        with open(path, encoding="utf-8") as fh:
            info = json.load(fh)
    except (OSError, ValueError) as exc:
        return f"{where} (unreadable: {type(exc).__name__})"
    kind = info.get("type") if isinstance(info, dict) else None
    if kind == "service_account":
        return f"service account {info.get('client_email', '?')} ({where})"
    if kind == "authorized_user":
        return f"authorized user ({where})"
    return f"{kind or 'unknown'} credentials ({where})"
