"""What a turn costs: known prices per model, the settings' ``prices`` on top.

In the engine, so every view reports the same figure: the TUI's usage pane, headless
``stats`` (json and stream-json), the session browser and ``gemtui usage``. Each known
price says where it was read and when (``SOURCES``); a person's own figures
(``[prices."MODEL"]``, or a provider's ``prices``) win over it and are said to be theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from gemtui.bus.events import Usage

if TYPE_CHECKING:
    from gemtui.config.settings import Settings

__all__ = [
    "PRICES",
    "SOURCES",
    "PriceBook",
    "PriceSource",
    "cost_of",
    "price_book",
    "price_for",
    "price_origin",
    "readers_prices",
]

PRICES: dict[str, dict[str, float]] = {
    "gemini-2.5-pro": {"input": 1.25, "output": 10.0, "cached": 0.31},
    "gemini-2.5-flash": {"input": 0.30, "output": 2.50, "cached": 0.075},
    "gemini-2.5-flash-lite": {"input": 0.10, "output": 0.40, "cached": 0.025},
    "gemini-2.0-flash": {"input": 0.10, "output": 0.40, "cached": 0.025},
    "gpt-4o": {"input": 2.50, "output": 10.0, "cached": 1.25},
    "gpt-4o-mini": {"input": 0.15, "output": 0.60, "cached": 0.075},
    "claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cached": 0.30},
    "claude-opus-4-1": {"input": 15.0, "output": 75.0, "cached": 1.50},
    "claude-haiku-4-5": {"input": 1.0, "output": 5.0, "cached": 0.10},
}
"""USD per million tokens (input, output — thoughts are billed as output —, cached input)."""


class PriceSource(Struct, frozen=True):
    """Where a provider's prices in ``PRICES`` were read, and on which day."""

    url: str
    """The provider's own pricing page."""
    taken: str
    """ISO date the figures were copied from it (they may have changed since)."""

    def describe(self) -> str:
        return f"{self.url} (taken {self.taken})"


SOURCES: dict[str, PriceSource] = {
    "gemini-": PriceSource("https://ai.google.dev/gemini-api/docs/pricing", "2026-11-21"),
    "gpt-": PriceSource("https://openai.com/api/pricing/", "2026-11-21"),
    "claude-": PriceSource("https://www.anthropic.com/pricing#api", "2026-11-21"),
}
"""Per provider (by model-name prefix): the page every ``PRICES`` entry of its models
came from. A test keeps every entry covered."""


class PriceBook(dict[str, float]):
    """A provider's ``prices`` (the mapping itself) with the session's own
    ``[prices."MODEL"]`` riding along: one per session, carried in its executor's
    config (ACP and the fleet build many sessions in one process); the views of the
    store (``/usage``, the sessions browser, ``gemtui usage``) build one from the
    settings they read (``PriceBook(None, settings.price_overrides())``)."""

    def __init__(
        self,
        provider: Mapping[str, float] | None = None,
        models: Mapping[str, Mapping[str, float]] | None = None,
    ) -> None:
        super().__init__(provider or {})
        self.models = {model: dict(price) for model, price in (models or {}).items()}
        """``[prices."MODEL"]``: each model's own price, by its exact name."""

    def models_only(self) -> PriceBook:
        """The same per-model prices without the provider's (for another model's calls)."""
        return PriceBook(None, self.models)


def price_book(settings: Settings, provider: Mapping[str, float] | None = None) -> PriceBook:
    """The book a session prices with: its provider's flat ``prices`` (None: a view of
    the store, whose rows may be any provider's) and the settings' ``[prices."MODEL"]``."""
    return PriceBook(provider, settings.price_overrides())


def readers_prices(workspace: Path) -> PriceBook:
    """The person's own ``[prices."MODEL"]`` for a view of the store outside a session
    (``gemtui usage``, ``gemtui sessions``): the user's settings only, a folder's not
    being trusted there. A broken settings file raises ``FatalError`` (exit 52)."""
    from gemtui.config.settings import load_settings

    return price_book(load_settings(workspace))


def _known(model: str) -> str | None:
    known = [name for name in PRICES if model.startswith(name)]
    return max(known, key=len) if known else None


def price_for(model: str, overrides: Mapping[str, float] | None = None) -> dict[str, float] | None:
    """The price of ``model`` (longest known prefix), with the provider's ``prices`` on
    top, and the settings' own ``[prices."MODEL"]`` (the exact name) on top of both.
    None unless both input and output are priced: half a price would count the other
    half as $0, and a cap would never hold."""
    known = _known(model)
    base = dict(PRICES[known]) if known else {}
    if overrides:
        base.update(overrides)
    base.update(_models(overrides).get(model, {}))
    return base if "input" in base and "output" in base else None


def price_origin(model: str, overrides: Mapping[str, float] | None = None) -> str | None:
    """Where ``model``'s price comes from, in words (None: no price is known)."""
    if model in _models(overrides):
        return f'your settings ([prices."{model}"])'
    if overrides:
        return "your settings (the provider's prices)"
    known = _known(model)
    if known is None:
        return None
    source = next((s for prefix, s in SOURCES.items() if known.startswith(prefix)), None)
    return source.describe() if source else "built in (no source recorded)"


def _models(overrides: Mapping[str, float] | None) -> dict[str, dict[str, float]]:
    """The per-model prices in force: the book's (a bare provider mapping has none).
    There is no process-wide table: each session, and each view of the store, passes
    its own book, so one session's settings never price another's calls."""
    return overrides.models if isinstance(overrides, PriceBook) else {}


def cost_of(usage: Usage, price: Mapping[str, float] | None) -> float | None:
    """USD for ``usage`` at ``price``; None when no price is known."""
    if not price:
        return None
    cached = min(usage.cached, usage.input)
    per_million = (
        (usage.input - cached) * price.get("input", 0.0)
        + cached * price.get("cached", price.get("input", 0.0))
        + (usage.output + usage.thoughts) * price.get("output", 0.0)
    )
    return per_million / 1_000_000
