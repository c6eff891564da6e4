"""The ways an editor can have gemtui sign in (``authenticate``) and out (``logout``).

Each method names a credential gemtui already knows: a Gemini API key, the Google
sign-in of ``gemtui auth login``, or Vertex AI through Gemini CLI's variables (its
Application Default Credentials belong to gcloud or the environment, never to gemtui).
``logout`` deletes what gemtui itself stored for the method in use, nothing else.
"""

from __future__ import annotations

import os

from acp import RequestError
from acp.schema import AuthMethodAgent

from gemtui.errors import EXIT_AUTH, FatalError

__all__ = ["AUTH_METHODS", "VERTEX", "authenticate", "fatal", "logout", "method_in_use"]

API_KEY = "gemini-api-key"
GOOGLE = "oauth-personal"
VERTEX = "vertex-ai"

_VERTEX_VARS = ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")

AUTH_METHODS = (
    AuthMethodAgent(
        id=API_KEY,
        name="Gemini API key",
        description="Set GEMINI_API_KEY, or save a key with the gemtui TUI",
    ),
    AuthMethodAgent(
        id=GOOGLE,
        name="Log in with Google",
        description="The same sign-in as `gemtui auth login`",
    ),
    AuthMethodAgent(
        id=VERTEX,
        name="Vertex AI",
        description=(
            "Set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and "
            "GOOGLE_CLOUD_LOCATION (Application Default Credentials), or with "
            "GOOGLE_API_KEY alone (express mode)"
        ),
    ),
)
"""What ``initialize`` offers, in this order."""


def fatal(exc: FatalError) -> RequestError:
    """A setup failure as the client's error: "authentication required" for a missing or
    refused key (the client then offers the auth methods), else an internal error."""
    code = -32000 if exc.exit_code == EXIT_AUTH else -32603
    return RequestError(code, exc.message, {"exitCode": exc.exit_code})


def _vertex_ready() -> bool:
    """Gemini CLI's switch with a project and a location, or express mode's key."""
    on = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("true", "1")
    project = os.environ.get("GOOGLE_CLOUD_PROJECT") and os.environ.get("GOOGLE_CLOUD_LOCATION")
    return on and bool(project or os.environ.get("GOOGLE_API_KEY"))


async def authenticate(method_id: str) -> None:
    """Make ``method_id`` usable, or raise the error the client shows."""
    if method_id == GOOGLE:
        from gemtui.auth.login import login

        async def no_paste() -> str:
            return ""  # stdin carries the protocol: never read a pasted code from it

        try:
            await login(no_browser=False, paste=no_paste, file_store=False)
        except FatalError as exc:
            raise fatal(exc) from exc
        return
    if method_id == API_KEY:
        return  # the key is read when a session is built
    if method_id == VERTEX:
        if not _vertex_ready():
            raise RequestError(
                -32000,
                "Vertex AI needs " + ", ".join(_VERTEX_VARS) + " in gemtui's environment"
                " (or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_API_KEY for express mode).",
                {"exitCode": EXIT_AUTH},
            )
        return
    raise RequestError.invalid_params({"methodId": method_id})


def method_in_use() -> str | None:
    """The method sessions use when the client chose none: the one gemtui's own
    provider choice would take (an API key first, then the Google sign-in)."""
    from gemtui.auth.store import ENTRY
    from gemtui.config.secrets import get_secret

    if get_secret(API_KEY, "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        return API_KEY
    if _vertex_ready():
        return VERTEX
    if get_secret(ENTRY):
        return GOOGLE
    return None


def logout(method_id: str | None) -> None:
    """Delete what gemtui stored for ``method_id``: the Google tokens, or the API key's
    keyring entry. A key in the environment, and Vertex AI's credentials, are not
    gemtui's to delete."""
    if method_id == GOOGLE:
        from gemtui.auth import store

        store.forget()
    elif method_id == API_KEY and not _env_key():  # an environment key wins over the saved one
        from gemtui.config.secrets import delete_secret

        delete_secret(API_KEY)


def _env_key() -> bool:
    return bool(os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY"))
