"""What a turn costs: known prices per model, the settings' ``prices`` on top.

In the engine, so every view reports the same figure: the TUI's usage pane, headless
``stats`` (json and stream-json) and the session browser.
"""

from __future__ import annotations

from collections.abc import Mapping

from gemtui.bus.events import Usage

__all__ = ["PRICES", "cost_of", "price_for"]

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


def price_for(model: str, overrides: Mapping[str, float] | None = None) -> dict[str, float] | None:
    """The price of ``model`` (longest known prefix), with settings' ``prices`` on top."""
    known = [name for name in PRICES if model.startswith(name)]
    base = dict(PRICES[max(known, key=len)]) if known else {}
    if overrides:
        base.update(overrides)
    return base or None


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
