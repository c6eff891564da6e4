"""Secrets live in the environment or the OS keyring, never in a file gemtui writes.

Many headless Linux machines have no keyring backend (``keyring.backends.fail``); then
storing fails with a message that says what to do instead (use the environment variable
or install a backend such as ``keyrings.alt`` / a Secret Service).
"""

from __future__ import annotations

import contextlib
import os

from gemtui.errors import FatalAuthenticationError

__all__ = ["SERVICE", "delete_secret", "get_secret", "keyring_available", "set_secret"]

SERVICE = "gemtui"


def keyring_available() -> bool:
    try:
        import keyring
        from keyring.backends import fail
    except Exception:  # pragma: no cover - keyring is a dependency
        return False
    return not isinstance(keyring.get_keyring(), fail.Keyring)


def get_secret(name: str, *env_vars: str) -> str | None:
    """The first non-empty environment variable, else the keyring entry ``name``."""
    for var in env_vars:
        value = os.environ.get(var)
        if value:
            return value
    if not keyring_available():
        return None
    import keyring

    try:
        return keyring.get_password(SERVICE, name)
    except Exception:
        return None


def set_secret(name: str, value: str) -> None:
    if not keyring_available():
        raise FatalAuthenticationError(
            "No OS keyring is available to store the secret. Set the environment variable "
            "instead (e.g. GEMINI_API_KEY), or install a keyring backend (Secret Service, "
            "or `pip install keyrings.alt`)."
        )
    import keyring

    keyring.set_password(SERVICE, name, value)


def delete_secret(name: str) -> None:
    if not keyring_available():
        return
    import keyring
    from keyring.errors import PasswordDeleteError

    with contextlib.suppress(PasswordDeleteError):
        keyring.delete_password(SERVICE, name)
