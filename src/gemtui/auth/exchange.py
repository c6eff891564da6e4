"""Trading the authorization code for tokens, and reading who signed in.

Why: offline access needs a refresh token; a response without one would leave the
person signed out in an hour, so it is refused now with exit 41.
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx

from gemtui import redact
from gemtui.auth.pkce import CLIENT_ID, AuthRequest, token_url, userinfo_url
from gemtui.errors import FatalAuthenticationError

# Gemini CLI's installed-app secret: public by design (RFC 8252 section 8.5).
CLIENT_SECRET = "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"


@dataclass(frozen=True)
class Tokens:
    """What the token endpoint granted; every secret is registered with the redactor."""

    access_token: str
    refresh_token: str
    expires_at: float
    id_token: str = ""
    email: str = ""

    def __post_init__(self) -> None:
        for secret in (self.access_token, self.refresh_token, self.id_token):
            redact.register(secret or None)


def email_of(id_token: str) -> str:
    """The ``email`` claim of an id_token (read, not verified: it came over TLS from Google)."""
    try:
        payload = id_token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return ""
    email = claims.get("email") if isinstance(claims, dict) else None
    return email if isinstance(email, str) else ""


def oauth_client(redirect_uri: str | None = None) -> Any:
    """authlib's OAuth 2 client for Google's token endpoint (its own short-lived connection).

    The installed-app client sends its id and (public) secret in the form, as Google's
    own libraries do; PKCE (S256) binds the code to this process.
    """
    from authlib.integrations.httpx_client import AsyncOAuth2Client

    return AsyncOAuth2Client(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        token_endpoint_auth_method="client_secret_post",
        code_challenge_method="S256",
        redirect_uri=redirect_uri,
        timeout=30.0,
    )


def _why(exc: Exception) -> str:
    """authlib's error as one line (the token endpoint's ``error_description`` when given)."""
    description = getattr(exc, "description", None)
    error = getattr(exc, "error", None)
    return str(description or error or type(exc).__name__)


async def exchange_code(client: httpx.AsyncClient, request: AuthRequest, code: str) -> Tokens:
    """The authorization_code grant with the PKCE verifier; refuses a missing refresh token."""
    from authlib.common.errors import AuthlibBaseError

    redact.register(code)
    async with oauth_client(request.redirect_uri) as oauth:
        try:
            body = await oauth.fetch_token(
                token_url(),
                grant_type="authorization_code",
                code=code,
                code_verifier=request.verifier,
            )
        except AuthlibBaseError as exc:
            raise FatalAuthenticationError(
                f"Sign-in failed: the token endpoint refused the code ({_why(exc)})."
            ) from None
        except httpx.HTTPError as exc:
            raise FatalAuthenticationError(
                f"Sign-in failed: the token endpoint could not be reached ({exc})."
            ) from None
        access = str(body.get("access_token") or "")
        redact.register(access or None)
        refresh = str(body.get("refresh_token") or "")
        redact.register(refresh or None)
        if not access or not refresh:
            raise FatalAuthenticationError(
                "Sign-in failed: Google granted no refresh token (offline access); "
                "remove gemtui's access at myaccount.google.com/permissions and sign in again."
            )
        ident = str(body.get("id_token") or "")
        expires = time.time() + float(body.get("expires_in") or 3600)
        email = email_of(ident) or await _userinfo_email(client, access)
    return Tokens(access, refresh, expires, ident, email)


async def _userinfo_email(client: httpx.AsyncClient, access: str) -> str:
    """The email from the userinfo endpoint, for an id_token that lacks it ("" on failure)."""
    try:
        resp = await client.get(userinfo_url(), headers={"authorization": f"Bearer {access}"})
        body = resp.json() if resp.status_code == 200 else {}
    except (httpx.HTTPError, ValueError):
        return ""
    email = body.get("email") if isinstance(body, dict) else None
    return email if isinstance(email, str) else ""
