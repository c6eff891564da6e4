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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gemtui.agent.prices import price_for
from gemtui.bus import ModelFallback
from gemtui.errors import ApiError

if TYPE_CHECKING:
    from gemtui.agent.executor import Executor
    from gemtui.agent.run_state import RunState
    from gemtui.agent.session import Session

__all__ = [
    "FALLBACK_STATUSES",
    "FallbackAsk",
    "FallbackOffer",
    "attach_fallback",
    "fall_back",
    "price_text",
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


def attach_fallback(session: Session, ask: FallbackAsk | None) -> None:
    """Give ``session`` who decides a switch (None: nobody, so no switch ever)."""
    executor = session.executor
    executor.config = replace(executor.config, fallback_ask=ask)


async def fall_back(executor: Executor, state: RunState) -> bool:
    """On an exhausted quota or an overloaded model, switch to the next fallback model if
    the one who decides says yes; True when the turn goes on with the new model."""
    err = state.error
    if not (isinstance(err, ApiError) and err.status in FALLBACK_STATUSES):
        return False
    chat, config = executor.chat, executor.config
    state.exhausted.add(chat.model)
    executor.spent_models.add(chat.model)
    remaining = [m for m in config.fallback if m not in state.exhausted]
    if not remaining:
        return False
    previous, nxt = chat.model, remaining[0]
    why = f"{FALLBACK_STATUSES[err.status]}: {err.message}"
    offer = FallbackOffer(previous, nxt, why, price_text(nxt, config.prices))
    if config.fallback_ask is None:
        state.fallback_note = (
            f"--fallback (or fallback_auto = true in [general]) would have switched to {nxt}."
        )
        return False
    if not await config.fallback_ask(offer):
        state.fallback_note = f"You chose not to switch to {nxt}."
        return False
    chat.set_model(nxt)
    state.error = None
    state.fallbacks.append(
        executor.bus.emit(ModelFallback, from_model=previous, to_model=nxt, reason=why)
    )
    return True
