"""A fallback that asks: switching to another model never happens silently.

Why: a silent switch to a weaker (or dearer) model when quota runs out is the oldest
grief of Gemini users. When the current model's quota is exhausted (429 after retries)
or the model is overloaded (503, Anthropic's 529), the executor offers the next model of
the ``fallback`` list to whoever may decide: the TUI asks the person (showing the new
model's price), a headless run switches only with ``--fallback`` or
``[general] fallback_auto = true``. Nobody to ask means no switch: the prompt ends with
the error, and the message names the model ``--fallback`` would have switched to.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from gemtui.agent.prices import price_for
from gemtui.errors import ApiError

__all__ = [
    "FALLBACK_STATUSES",
    "FallbackAsk",
    "FallbackOffer",
    "fallback_offer",
    "price_text",
    "refusal",
    "switch_always",
]

FALLBACK_STATUSES = {429: "quota exhausted", 503: "model overloaded", 529: "model overloaded"}
"""What may be fixed by another model: a quota run out, or a model too busy to answer."""


@dataclass(frozen=True)
class FallbackOffer:
    """The switch on offer: from which model, to which, why, and what the new one costs."""

    from_model: str
    to_model: str
    reason: str
    """``quota exhausted`` or ``model overloaded``, with the server's words."""
    price: str
    """The new model's price per million tokens, or ``unknown price``."""
    spent_on_switch: tuple[set[str], ...] = field(default=(), compare=False, repr=False)
    """Sets ``from_model`` joins only if the switch happens (the session's spent models:
    a refused switch must not make the router avoid the model for the rest of it)."""


FallbackAsk = Callable[[FallbackOffer], Awaitable[bool]]
"""Decides one offered switch: True switches, False ends the prompt with the error."""


async def switch_always(offer: FallbackOffer) -> bool:
    """``--fallback`` / ``fallback_auto``: the person said yes before the run."""
    del offer
    return True


def price_text(model: str, overrides: dict[str, float] | None = None) -> str:
    """``$1.25 in / $10.00 out per 1M tokens``, or ``unknown price`` (never $0)."""
    price = price_for(model, overrides)
    if not price or "input" not in price or "output" not in price:
        return "unknown price"
    return f"${price['input']:.2f} in / ${price['output']:.2f} out per 1M tokens"


def fallback_offer(
    err: BaseException | None,
    model: str,
    fallback: tuple[str, ...],
    spent: tuple[set[str], ...],
    prices: dict[str, float],
) -> FallbackOffer | None:
    """The switch to offer after ``err`` on ``model`` (None: not a fallback error, or no
    model left); ``model`` joins the first of ``spent`` (this prompt's exhausted ones)
    now, the others only when the switch is allowed (``refusal``)."""
    if not (isinstance(err, ApiError) and err.status in FALLBACK_STATUSES):
        return None
    spent[0].add(model)
    remaining = [m for m in fallback if m not in spent[0]]
    if not remaining:  # nothing to switch to: nobody refused anything
        for models in spent[1:]:
            models.add(model)
        return None
    why = f"{FALLBACK_STATUSES[err.status]}: {err.message}"
    price = price_text(remaining[0], prices)
    return FallbackOffer(model, remaining[0], why, price, spent_on_switch=spent[1:])


async def refusal(offer: FallbackOffer, ask: FallbackAsk | None) -> str:
    """Empty when the switch is allowed; else why not, said with the error."""
    if ask is None:
        return (
            f"--fallback (or fallback_auto = true in [general]) would have switched to "
            f"{offer.to_model}."
        )
    if not await ask(offer):
        return f"You chose not to switch to {offer.to_model}."
    for models in offer.spent_on_switch:
        models.add(offer.from_model)
    return ""
