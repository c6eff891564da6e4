"""Checks on what comes back to ``/oauth2callback`` (or is pasted): the code, or a refusal.

Why: a forged or stale redirect must never be exchanged; every refusal is one clear
line and exit 41, never a traceback.
"""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs, urlsplit

from gemtui.auth.pkce import CALLBACK_PATH
from gemtui.errors import FatalAuthenticationError


def code_from_redirect(target: str, state: str, *, pasted: bool = False) -> str:
    """The authorization code in a redirect (path and query) or a pasted URL or bare code."""
    text = target.strip()
    if pasted and "?" not in text and "://" not in text and not text.startswith("/"):
        if not text:
            raise FatalAuthenticationError("Sign-in failed: no authorization code was given.")
        return text  # a bare code: PKCE still binds it to this process
    parts = urlsplit(text)
    if parts.path != CALLBACK_PATH:
        raise FatalAuthenticationError(
            f"Sign-in failed: the redirect went to {parts.path or '/'!r}, not {CALLBACK_PATH}."
        )
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    if "error" in query:
        why = query.get("error_description") or query["error"]
        raise FatalAuthenticationError(f"Sign-in refused by Google: {why}.")
    if not hmac.compare_digest(query.get("state", ""), state):
        raise FatalAuthenticationError(
            "Sign-in failed: the redirect's state does not match this sign-in; start again."
        )
    code = query.get("code", "")
    if not code:
        raise FatalAuthenticationError("Sign-in failed: the redirect carried no code.")
    return code
