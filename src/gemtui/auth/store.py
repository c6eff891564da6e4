"""Google sign-in tokens in the OS keyring (service ``gemtui``), never in a plain file.

Why: the refresh token is a long-lived credential to the person's Google account.
"""

from __future__ import annotations

import json

from gemtui import redact
from gemtui.auth.exchange import Tokens
from gemtui.config.secrets import delete_secret, get_secret, set_secret

ENTRY = "google-oauth"


def save(tokens: Tokens) -> None:
    """Store the tokens as one keyring entry (exit 41 with advice when there is no keyring)."""
    fields = {
        "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token,
        "expires_at": tokens.expires_at,
        "id_token": tokens.id_token,
        "email": tokens.email,
    }
    set_secret(ENTRY, json.dumps(fields))


def load() -> Tokens | None:
    """The stored tokens, or None when nobody is signed in (or the entry is unreadable)."""
    raw = get_secret(ENTRY)
    if not raw:
        return None
    try:
        data = json.loads(raw)
        tokens = Tokens(
            str(data["access_token"]),
            str(data["refresh_token"]),
            float(data["expires_at"]),
            str(data.get("id_token") or ""),
            str(data.get("email") or ""),
        )
    except (ValueError, KeyError, TypeError):
        return None
    for secret in (tokens.access_token, tokens.refresh_token, tokens.id_token):
        redact.register(secret or None)
    return tokens


def forget() -> None:
    """Sign out locally: the keyring entry is deleted."""
    delete_secret(ENTRY)
