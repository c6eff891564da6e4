"""Reading ``[model] fallback`` entries: ``MODEL`` or ``PROVIDER:MODEL``.

Why apart: the settings check them at load (an unknown provider exits 52 before any
call) and the agent splits them the same way when it offers a switch. A model name may
hold a colon itself (Ollama's ``qwen3:8b``), so an entry is split only where its prefix
names a provider; any other ``x:y`` is a model of the provider in use, unless it plainly
meant a provider (see ``entry_problem``).
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["BUILTIN_PROVIDER_NAMES", "entry_problem", "split_entry"]

BUILTIN_PROVIDER_NAMES = ("gemini", "code-assist", "vertex", "openai", "anthropic")
"""The providers every install knows (``agent.provider_choice.BUILTIN_PROVIDERS``)."""

_CLOUD_FAMILIES = ("gemini-", "gpt-", "claude-")
"""Model names no local server's tag looks like: after an unknown prefix, a typo'd or
missing provider (``google:gemini-2.5-flash``), never an Ollama tag."""


def split_entry(entry: str, known: Collection[str]) -> tuple[str | None, str]:
    """``(provider, model)`` when the part before the first ``:`` is in ``known``; else
    ``(None, entry)``: a model of the provider in use, colon and all."""
    prefix, colon, model = entry.partition(":")
    if colon and prefix in known and model:
        return prefix, model
    return None, entry


def entry_problem(entry: str, known: Collection[str]) -> str | None:
    """What is wrong with an entry, said for the person; None when it is usable.

    An entry meant as ``PROVIDER:MODEL`` must name a configured or built-in provider: a
    second colon (``ollama:qwen3:8b``), a cloud model's name after the prefix, or a
    prefix one typo away from a known name (``opnai``) says it meant one."""
    prefix, colon, model = entry.partition(":")
    if not entry.strip() or (colon and not model):
        return f"{entry!r} names no model"
    if not colon or prefix in known:
        return None
    import difflib  # only for a prefix no provider has: settings load stays light

    meant = ":" in model or model.startswith(_CLOUD_FAMILIES)
    if meant or difflib.get_close_matches(prefix, list(known), n=1, cutoff=0.8):
        names = ", ".join(sorted(known))
        return (
            f"{entry!r} names provider {prefix!r}, which is not configured (known: {names}); "
            f"add a [providers.{prefix}] table with a `kind`, or fix the name"
        )
    return None
