"""What a failed model call means for the person, and what to do about it.

Why: "[403] The caller does not have permission" is the server's truth but no help; the
person needs to hear which project, which model, which key, and the next step. The
server's own words are always kept in the message (never replaced by a guess).
"""

from __future__ import annotations

from msgspec import Struct, field

from gemtui.errors import ApiError

__all__ = ["ErrorContext", "explain"]


class ErrorContext(Struct, frozen=True):
    """What the session knows when a call fails: who was asked, for what."""

    provider: str
    """The provider's kind: gemini, code-assist, openai, anthropic, replay."""
    model: str
    models: tuple[str, ...] = ()
    """Models the person can switch to (for a 404)."""
    project: str = ""
    """The Google Cloud project of a code-assist session."""
    attempts: int = 1
    exhausted: tuple[str, ...] = field(default_factory=tuple)
    """Models whose quota already ran out in this prompt (the fallback taken)."""


_KEY_HELP = {
    "gemini": "Check GEMINI_API_KEY (or the key stored from the welcome screen).",
    "anthropic": "Check ANTHROPIC_API_KEY (or the key stored from the welcome screen).",
    "openai": "Check OPENAI_API_KEY and the server's URL (OPENAI_BASE_URL or base_url).",
    "code-assist": "Sign in again: run `gemtui auth login`, or /auth in the TUI.",
    "vertex": "Check GOOGLE_APPLICATION_CREDENTIALS (or GOOGLE_API_KEY in express mode) and "
    "that the Vertex AI API is enabled for GOOGLE_CLOUD_PROJECT.",
}


def explain(err: BaseException, ctx: ErrorContext) -> tuple[str, str | None]:
    """The message (the server's words kept) and a hint saying what to do next."""
    if not isinstance(err, ApiError):
        return str(err), None
    said = err.message
    status = err.status
    if status == 400:
        return (
            f"{ctx.provider} refused the request as malformed: {said}",
            "A setting (model options, a tool's schema) may not suit this model; "
            "if it persists, report it with `gemtui --version`.",
        )
    if status == 401:
        return f"{ctx.provider} did not accept the credentials: {said}", _KEY_HELP.get(
            ctx.provider, "Check the provider's key."
        )
    if status == 403:
        if ctx.provider == "code-assist":
            where = f"project '{ctx.project}'" if ctx.project else "no project"
            return (
                f"Permission denied for {where}: {said}",
                "Set the project to use with `export GOOGLE_CLOUD_PROJECT=your-project-id` "
                "(one with the Gemini for Google Cloud API enabled), then run gemtui again.",
            )
        return (
            f"Permission denied for {ctx.model}: {said}",
            "The key may not have access to this model, or the API is not enabled for its "
            "project. " + _KEY_HELP.get(ctx.provider, ""),
        )
    if status == 404:
        others = [m for m in ctx.models if m != ctx.model]
        listed = ", ".join(others) if others else "see /model"
        return (
            f"Model '{ctx.model}' was not found by {ctx.provider}: {said}",
            f"Available: {listed}. Switch with /model NAME (or -m NAME).",
        )
    if status == 429:
        delay = err.server_delay
        resets = f"It resets in {_duration(delay)}. " if delay is not None else ""
        tried = (
            f"Already switched from {', '.join(ctx.exhausted)}; no fallback model is left. "
            if ctx.exhausted
            else ""
        )
        which = "; ".join(v.describe() for v in err.details.violations)
        quota = f" Quota: {which}." if which else ""
        return (
            f"Quota exhausted for {ctx.model}: {said}{quota}",
            f"{resets}{tried}Wait, or switch model with /model NAME (or -m NAME).",
        )
    if status >= 500 or status == 499:
        times = f" after {ctx.attempts} attempts" if ctx.attempts > 1 else ""
        return (
            f"{ctx.provider}'s server failed{times} ({status}): {said}",
            "The service is having trouble; try again in a little while.",
        )
    return str(err), None


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
