"""Whether a typed line is a slash command: the one rule, in a module that imports nothing,
so the session controller can ask it without the commands' table (an import cycle)."""

from __future__ import annotations

__all__ = ["parse_slash"]


def parse_slash(text: str) -> tuple[str, str] | None:
    """``("/theme", "gemtui-light")`` for a slash command line, None for a prompt."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, rest = stripped.partition(" ")
    return name.lower(), rest.strip()
