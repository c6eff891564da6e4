"""How a prompt's loop ended, as the exit code a script sees (one classification)."""

from __future__ import annotations

from gemtui.bus.events import TerminateReason
from gemtui.errors import (
    EXIT_CANCELLED,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_TURN_LIMIT,
    ApiError,
    FatalAuthenticationError,
    FatalError,
)

__all__ = ["exit_code_for", "exit_code_for_error", "join_turns"]


def join_turns(texts: list[str]) -> str:
    """The answer of a prompt: each model turn's text its own paragraph, as the text
    format prints it ("…first." and "Now writing…" never run together)."""
    out = ""
    for text in texts:
        if not text:
            continue
        if out:
            out += "\n" if out.endswith("\n") else "\n\n"
        out += text
    return out


def exit_code_for_error(exc: BaseException | None) -> int:
    """A failure's exit code: its own for a fatal error, 41 for a refused key, else 1."""
    if isinstance(exc, FatalError):
        return exc.exit_code
    if isinstance(exc, ApiError) and exc.status in (401, 403):
        return FatalAuthenticationError.exit_code
    return EXIT_ERROR


def exit_code_for(reason: TerminateReason, error: BaseException | None) -> int:
    """The exit code for a loop that ended with ``reason`` (and ``error``, if any)."""
    if reason == TerminateReason.ERROR:
        return exit_code_for_error(error)
    return {
        TerminateReason.GOAL: EXIT_OK,
        TerminateReason.ABORTED: EXIT_CANCELLED,
        TerminateReason.TIMEOUT: EXIT_CANCELLED,
        TerminateReason.MAX_TURNS: EXIT_TURN_LIMIT,
    }.get(reason, EXIT_ERROR)
