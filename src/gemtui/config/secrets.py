"""Secrets live in the environment or the OS keyring, never in a file gemtui writes.

Many headless Linux machines have no keyring backend (``keyring.backends.fail``); then
storing fails with a message that says what to do instead (use the environment variable
or install a backend such as ``keyrings.alt`` / a Secret Service).

Every value read or stored here is registered with ``gemtui.redact``, so a key that came
from the keyring is masked at every exit just like one from the environment.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from gemtui.errors import FatalAuthenticationError
from gemtui.redact import register, register_header, register_variable

if TYPE_CHECKING:
    from gemtui.config.settings import Settings

__all__ = [
    "KEY_NAMES",
    "SERVICE",
    "delete_secret",
    "get_secret",
    "keep_for_run",
    "keyring_available",
    "register_configured_secrets",
    "register_stored_secrets",
    "set_secret",
]

SERVICE = "gemtui"

KEY_NAMES = ("gemini-api-key", "openai-api-key", "anthropic-api-key")
"""The keyring entries of the built-in providers (a named provider adds ``NAME-api-key``)."""

_THIS_RUN: dict[str, str] = {}
"""Keys pasted where no keyring can keep them: held in this process's memory only (never
a file, never the environment children inherit), so the run can use them."""


def keep_for_run(name: str, value: str) -> None:
    """Hold ``value`` as the secret ``name`` until this process ends (no keyring here)."""
    register(value)
    _THIS_RUN[name] = value


def _no_keyring_can_exist() -> bool:
    """Linux with no D-Bus session bus, no keyring plugin (``keyrings.*``), no keyring
    settings and no explicit backend: no OS keyring can answer, so the ``keyring``
    package is not even imported (its plugin scan costs ~100 ms and ~15 MB per run).
    Once something imported keyring (a test's backend, a plugin), it is asked as usual."""
    import sys

    if "keyring" in sys.modules or not sys.platform.startswith("linux"):
        return False
    if os.environ.get("PYTHON_KEYRING_BACKEND") or os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    from importlib.util import find_spec
    from pathlib import Path

    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return not (
        Path(runtime, "bus").exists()
        or Path(config, "python_keyring", "keyringrc.cfg").exists()
        or find_spec("keyrings") is not None
    )


def keyring_available() -> bool:
    if _no_keyring_can_exist():
        return False
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
            register(value)
            return value
    if name in _THIS_RUN:
        return _THIS_RUN[name]
    if not keyring_available():
        return None
    import keyring

    try:
        value = keyring.get_password(SERVICE, name)
    except Exception:
        return None
    register(value)
    return value


def register_stored_secrets(names: Iterable[str] = ()) -> None:
    """Read gemtui's keyring entries so they are masked even in a run that uses another key.

    A key kept in the keyring can still reach gemtui through a file the model reads or a
    command's output while the run itself uses ``GEMINI_API_KEY``.
    """
    if not keyring_available():
        return
    for name in dict.fromkeys((*KEY_NAMES, *names)):
        get_secret(name)


def register_configured_secrets(settings: Settings) -> None:
    """Register the credentials written in settings: MCP servers' secret-named variables
    and their authorization headers."""
    for server in settings.mcpServers.values():
        for name, value in server.env.items():
            register_variable(name, value)
        for name, value in server.headers.items():
            register_header(name, value)


def set_secret(name: str, value: str) -> None:
    if not keyring_available():
        raise FatalAuthenticationError(
            "No OS keyring is available to store the secret. Set the environment variable "
            "instead (e.g. GEMINI_API_KEY), or install a keyring backend (Secret Service, "
            "or `pip install keyrings.alt`)."
        )
    import keyring

    register(value)
    keyring.set_password(SERVICE, name, value)


def delete_secret(name: str) -> None:
    if not keyring_available():
        return
    import keyring
    from keyring.errors import PasswordDeleteError

    with contextlib.suppress(PasswordDeleteError):
        keyring.delete_password(SERVICE, name)
