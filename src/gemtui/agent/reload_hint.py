"""The hint under a warning about a file that did not load (a custom command, an agent,
a skill): how to load it again once fixed, in words that work where it is read."""

from __future__ import annotations

__all__ = ["reload_hint"]


def reload_hint(what: str, *, interactive: bool) -> str:
    """How to load a fixed file of ``what`` (commands, agents, skills) again:
    ``/WHAT reload`` in the TUI; a headless run has no slash commands, so the next run."""
    if interactive:
        return f"Fix the file, then /{what} reload."
    return "Fix the file; the next gemtui run reads it again."
