"""``/server:prompt value … | name=value …``: an MCP server's prompt found by name and its
arguments read from what the person typed, one reading for the TUI and the editor (ACP)."""

from __future__ import annotations

import shlex
from typing import Any

__all__ = ["find_prompt", "missing_arguments", "prompt_values"]


def find_prompt(prompts: list[tuple[str, Any]], name: str) -> tuple[str, Any] | None:
    """The (server, prompt) that ``server:prompt`` names, case-insensitively, or None."""
    server, colon, wanted = name.removeprefix("/").partition(":")
    if not colon:
        return None
    return next(
        (
            (s, p)
            for s, p in prompts
            if s.lower() == server.lower() and p.name.lower() == wanted.lower()
        ),
        None,
    )


def prompt_values(prompt: Any, arg: str) -> dict[str, str]:
    """``value …`` (in the prompt's argument order) or ``name=value …`` as its arguments."""
    params = [a.name for a in prompt.arguments or []]
    try:
        words = shlex.split(arg)
    except ValueError:
        words = arg.split()
    values: dict[str, str] = {}
    positional = iter(params)
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in params:
            values[key] = value
        else:
            values[next(positional, params[-1] if params else "input")] = word
    return values


def missing_arguments(prompt: Any, values: dict[str, str]) -> list[str]:
    """The required arguments ``values`` leaves out."""
    return [a.name for a in prompt.arguments or [] if a.required and a.name not in values]
