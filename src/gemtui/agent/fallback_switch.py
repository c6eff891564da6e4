"""Taking a fallback mid-prompt: another model of the provider in use, or a model of
another provider (``[model] fallback = ["openai:gpt-4o"]``), the conversation kept.

Why apart from the executor: the loop only learns whether to go on. Reaching another
provider needs its generator, key and settings, which the session knows; it lends them
as a ``fallback.ProviderHop`` (the executor never imports the session). The new provider
is built before anyone is asked, so the question shows its real price, and one that
cannot be built (no key) is said with the error instead of asked about.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gemtui.agent.fallback import FallbackOffer, ProviderHop, fallback_offer, price_text, refusal
from gemtui.bus import EventBus, ModelFallback
from gemtui.errors import FatalError

if TYPE_CHECKING:
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.agent.run_state import ExecutorConfig, RunState
    from gemtui.chat.chat import Chat

__all__ = ["fall_back"]


async def fall_back(
    chat: Chat, config: ExecutorConfig, state: RunState, spent_models: set[str], bus: EventBus
) -> bool:
    """Quota out or model overloaded: on to the next fallback model, if allowed. False
    leaves ``state.error`` to end the prompt, with ``state.fallback_note`` saying why."""
    hop, was = config.fallback_hop, chat.model
    here, known = (hop.current(), hop.known) if hop is not None else ("", frozenset[str]())
    spent = (state.tried, state.exhausted, spent_models)
    offer = fallback_offer(
        state.error, was, config.fallback, spent, config.prices, provider=here, known=known
    )
    if offer is None:
        state.fallback_note = ""
        return False
    built: ResolvedProvider | None = None
    note = ""
    if offer.moves and hop is not None and config.fallback_ask is not None:
        built, note = _build(hop, offer)
        if built is not None:  # priced with the new provider's own figures
            offer = replace(offer, price=price_text(offer.to_model, built.settings.prices))
    note = note or await refusal(offer, config.fallback_ask)
    if note:
        state.fallback_note = note
        if built is not None:
            await built.generator.aclose()
        return False
    if built is not None and hop is not None:
        await hop.use(offer.to_model, built)
    else:
        chat.set_model(offer.to_model)
    state.error = None
    moved = {"from_model": was, "to_model": offer.to_model, "reason": offer.reason}
    sides = {"from_provider": offer.from_provider, "to_provider": offer.to_provider}
    state.fallbacks.append(bus.emit(ModelFallback, **moved, **sides))
    return True


def _build(hop: ProviderHop, offer: FallbackOffer) -> tuple[ResolvedProvider | None, str]:
    """The offered provider, or why it cannot be used (said with the error)."""
    try:
        return hop.build(offer.to_provider, offer.to_model), ""
    except FatalError as exc:
        return None, f"Could not switch to {offer.target}: {exc.message}"
