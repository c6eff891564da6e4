"""Google sign-in tokens in the OS keyring (service ``gemtui``), never in a plain file.

Why: the refresh token is a long-lived credential to the person's Google account. Only
where no keyring exists, and only when the person asks for it (``--file-store``), are they
kept in one file readable by its owner alone (mode 0600), whose path is printed.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from gemtui import redact
from gemtui.auth.exchange import Tokens, email_of
from gemtui.config.secrets import delete_secret, get_secret, keyring_available, set_secret
from gemtui.errors import FatalAuthenticationError

ENTRY = "google-oauth"


def token_file() -> Path:
    """The opt-in file store (used only where no keyring exists and the person chose it)."""
    from gemtui.config.paths import config_dir

    return config_dir() / "google-oauth.json"


def _fields(tokens: Tokens) -> dict[str, Any]:
    return {
        "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token,
        "expires_at": tokens.expires_at,
        "id_token": tokens.id_token,
        "email": tokens.email,
    }


def save(tokens: Tokens, *, file_store: bool = False) -> Path | None:
    """Store the tokens: the keyring, else (opted in) the 0600 file, whose path is returned.

    Without a keyring and without the opt-in: exit 41 saying both ways out.
    """
    raw = json.dumps(_fields(tokens))
    if keyring_available():
        set_secret(ENTRY, raw)
        return None
    path = token_file()
    if not (file_store or path.exists()):
        raise FatalAuthenticationError(
            "No OS keyring is available to keep your Google sign-in. Install one (Secret "
            "Service, or `pip install keyrings.alt`), or run `gemtui auth login --file-store` "
            f"to keep the tokens in {path} (readable by you only)."
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(raw)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return path


def _parse(raw: str | None) -> Tokens | None:
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
    return tokens


def load() -> Tokens | None:
    """The stored tokens, or None when nobody is signed in (or the entry is unreadable)."""
    tokens = _parse(get_secret(ENTRY))
    if tokens is None and not keyring_available():
        with contextlib.suppress(OSError):
            tokens = _parse(token_file().read_text(encoding="utf-8"))
    if tokens is not None:
        for secret in (tokens.access_token, tokens.refresh_token, tokens.id_token):
            redact.register(secret or None)
    return tokens


def forget() -> None:
    """Sign out locally: the keyring entry (and any opt-in file) is deleted."""
    delete_secret(ENTRY)
    with contextlib.suppress(FileNotFoundError):
        token_file().unlink()


def gemini_cli_file() -> Path:
    """Where Gemini CLI caches its Google sign-in."""
    return Path.home() / ".gemini" / "oauth_creds.json"


def import_gemini_cli(path: Path | None = None) -> Tokens:
    """The tokens of Gemini CLI's ``oauth_creds.json`` (same client id, so they refresh here).

    Exit 41 when the file is missing, unreadable or has no refresh token.
    """
    source = path or gemini_cli_file()
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FatalAuthenticationError(
            f"No Gemini CLI sign-in found at {source}; run `gemtui auth login` instead."
        ) from None
    except (OSError, ValueError):
        raise FatalAuthenticationError(
            f"Gemini CLI's sign-in file {source} could not be read; run `gemtui auth login`."
        ) from None
    refresh = str(data.get("refresh_token") or "") if isinstance(data, dict) else ""
    if not refresh:
        raise FatalAuthenticationError(
            f"{source} holds no refresh token; run `gemtui auth login` instead."
        )
    ident = str(data.get("id_token") or "")
    expiry_ms = data.get("expiry_date")
    expires = float(expiry_ms) / 1000 if isinstance(expiry_ms, (int, float)) else 0.0
    return Tokens(str(data.get("access_token") or ""), refresh, expires, ident, email_of(ident))
