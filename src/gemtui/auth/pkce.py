"""The authorization request of Google's installed-app flow, with PKCE (S256) and a state.

Why: the code travels through a browser and a loopback port anyone local can reach;
PKCE binds it to this process and the state binds the redirect to this request.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

AUTH_URL = "https://accounts.google.com/o/oauth2/v2/auth"
TOKEN_URL = "https://oauth2.googleapis.com/token"
USERINFO_URL = "https://www.googleapis.com/oauth2/v2/userinfo"
SCOPES = (
    "https://www.googleapis.com/auth/cloud-platform",
    "https://www.googleapis.com/auth/userinfo.email",
    "https://www.googleapis.com/auth/userinfo.profile",
)
# Gemini CLI's installed-app client (public by design: installed apps cannot keep secrets).
CLIENT_ID = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com"
CALLBACK_PATH = "/oauth2callback"


def auth_url() -> str:
    """``GEMTUI_OAUTH_AUTH_URL`` when set (tests point it at the mock), else Google's."""
    return os.environ.get("GEMTUI_OAUTH_AUTH_URL") or AUTH_URL


def token_url() -> str:
    """``GEMTUI_OAUTH_TOKEN_URL`` when set, else Google's."""
    return os.environ.get("GEMTUI_OAUTH_TOKEN_URL") or TOKEN_URL


def userinfo_url() -> str:
    """Google's userinfo endpoint; beside the token endpoint when that is overridden (mock)."""
    override = os.environ.get("GEMTUI_OAUTH_TOKEN_URL")
    if override:
        parts = urlsplit(override)
        return f"{parts.scheme}://{parts.netloc}/oauth2/v2/userinfo"
    return USERINFO_URL


def challenge_of(verifier: str) -> str:
    """RFC 7636 S256: base64url(sha256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class AuthRequest:
    """One sign-in attempt: its secrets never leave this process except as the challenge."""

    redirect_uri: str
    verifier: str = field(default_factory=lambda: secrets.token_urlsafe(64)[:96])
    state: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    def url(self) -> str:
        """The URL the person opens: offline access and consent, so a refresh token comes."""
        params = {
            "client_id": CLIENT_ID,
            "redirect_uri": self.redirect_uri,
            "response_type": "code",
            "scope": " ".join(SCOPES),
            "access_type": "offline",
            "prompt": "consent",
            "state": self.state,
            "code_challenge": challenge_of(self.verifier),
            "code_challenge_method": "S256",
        }
        return f"{auth_url()}?{urlencode(params)}"
