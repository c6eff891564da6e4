"""How a tool call is summed up on one line: the argument that says what it does (a path,
a command, a query) shown in full, the others folded, and times short enough for a card.
Shared by the transcript's cards and the session browser's preview."""

from __future__ import annotations

import json

__all__ = ["EXPAND_KEY", "KEY_ARGUMENTS", "OPEN_OUTPUT_KEY", "elapsed", "split_arguments"]

KEY_ARGUMENTS = (
    "file_path",
    "absolute_path",
    "command",
    "pattern",
    "query",
    "url",
    "prompt",
    "dir_path",
    "path",
    "include",
    "paths",
    "fact",
    "task",
)
"""The argument a card shows in full, the first of these a call has; the rest fold."""

EXPAND_KEY = "ctrl+o"
"""Shown in a folded card's hint; the main screen binds it (toggle the last card)."""

OPEN_OUTPUT_KEY = "ctrl+g"
"""Shown on a card whose whole output was saved; opens the last such file in the pager."""


def _argument_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def split_arguments(args: dict[str, object]) -> tuple[str | None, list[tuple[str, str]]]:
    """The key argument's text (path, command, query…) and the other arguments, folded."""
    key = next((k for k in KEY_ARGUMENTS if args.get(k) not in (None, "", [])), None)
    rest = [(k, _argument_text(v)) for k, v in args.items() if k != key]
    return (_argument_text(args[key]) if key else None), rest


def elapsed(seconds: float) -> str:
    """40ms, 1.4s, 12s, 3m05s: short enough for a card or the status line."""
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 10:
        return f"{seconds:.1f}s"
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"
