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

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from msgspec import Struct

from gemtui.agent.prices import price_for
from gemtui.config.fallback_entries import split_entry
from gemtui.errors import ApiError

if TYPE_CHECKING:
    from gemtui.agent.provider_choice import ResolvedProvider

__all__ = [
    "FALLBACK_STATUSES",
    "FallbackAsk",
    "FallbackOffer",
    "ProviderHop",
    "fallback_offer",
    "label",
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
    from_provider: str = ""
    """The provider in use ("" when not known: no switch to another is possible)."""
    to_provider: str = ""
    """The provider of ``to_model`` (another one for a ``PROVIDER:MODEL`` entry)."""

    spent_on_switch: tuple[set[str], ...] = field(default=(), compare=False, repr=False)
    """Sets ``from_model`` joins only if the switch happens (the session's spent models:
    a refused switch must not make the router avoid the model for the rest of it)."""

    @property
    def moves(self) -> bool:
        """The switch goes to another provider (its generator is built first)."""
        return self.to_provider != self.from_provider

    @property
    def source(self) -> str:
        """The model left, ``PROVIDER:MODEL`` when the switch changes provider."""
        return label(self.from_provider, self.from_model) if self.moves else self.from_model

    @property
    def target(self) -> str:
        """The model offered, ``PROVIDER:MODEL`` when the switch changes provider."""
        return label(self.to_provider, self.to_model) if self.moves else self.to_model


FallbackAsk = Callable[[FallbackOffer], Awaitable[bool]]
"""Decides one offered switch: True switches, False ends the prompt with the error."""


class ProviderHop(Struct, frozen=True):
    """What the session lends the executor so a fallback can change provider."""

    current: Callable[[], str]
    """The name of the provider in use."""
    known: frozenset[str]
    """Provider names an entry's ``PROVIDER:`` may name (configured and built in)."""
    build: Callable[[str, str], ResolvedProvider]
    """(provider, model) → a provider ready to use; raises ``FatalError`` saying why not."""
    use: Callable[[str, ResolvedProvider], Awaitable[None]]
    """Move the conversation to (model, provider), as ``/model provider:model`` does."""


async def switch_always(offer: FallbackOffer) -> bool:
    """``--fallback`` / ``fallback_auto``: the person said yes before the run."""
    del offer
    return True


def label(provider: str, model: str) -> str:
    """``PROVIDER:MODEL``, or the model alone when the provider is not known."""
    return f"{provider}:{model}" if provider else model


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
    *,
    provider: str = "",
    known: Collection[str] = (),
) -> FallbackOffer | None:
    """The switch to offer after ``err`` on ``model`` (None: not a fallback error, or no
    model left). ``model`` joins the first of ``spent`` (this prompt's exhausted ones)
    now, also as ``provider:model``, the form entries are compared in; the others only
    when the switch is allowed (``refusal``): a refused switch must not make the router
    avoid the model for the rest of the session.

    ``provider`` is the one in use; an entry ``PROVIDER:MODEL`` whose prefix is in
    ``known`` (or is ``provider``) goes there, any other is a model of ``provider``.
    ``prices`` are the provider in use's: another provider's price is settled once it
    is built (its settings may hold its own)."""
    if not (isinstance(err, ApiError) and err.status in FALLBACK_STATUSES):
        return None
    spent[0].update((model, label(provider, model)))
    for entry in fallback:
        to_provider, to_model = split_entry(entry, {*known, provider} - {""})
        to_provider = to_provider or provider
        if label(to_provider, to_model) not in spent[0]:
            break
    else:  # nothing to switch to: nobody refused anything
        for models in spent[1:]:
            models.add(model)
        return None
    why = f"{FALLBACK_STATUSES[err.status]}: {err.message}"
    price = price_text(to_model, prices if to_provider == provider else None)
    return FallbackOffer(
        model, to_model, why, price, provider, to_provider, spent_on_switch=spent[1:]
    )


async def refusal(offer: FallbackOffer, ask: FallbackAsk | None) -> str:
    """Empty when the switch is allowed; else why not, said with the error."""
    if ask is None:
        return (
            f"--fallback (or fallback_auto = true in [general]) would have switched to "
            f"{offer.target}."
        )
    if not await ask(offer):
        return f"You chose not to switch to {offer.target}."
    for models in offer.spent_on_switch:
        models.add(offer.from_model)
    return ""
