"""The two model calls around a prompt's turns that are not turns: routing (``-m auto``
picks Flash or Pro before the first turn) and the next-speaker check (after a text-only
answer, did the model mean to go on?). Both race the prompt's cancel like every model
call, and both count their tokens in the prompt's usage."""

from __future__ import annotations

import asyncio

from gemtui.agent.cancellable import until_cancelled
from gemtui.agent.prices import cost_of, price_for
from gemtui.agent.run_state import ExecutorConfig, RunState, TurnOutcome
from gemtui.bus import EventBus, ModelRouted, current_prompt_id
from gemtui.chat.chat import Chat
from gemtui.wire import Part

__all__ = ["model_goes_on", "route_prompt"]


async def route_prompt(
    chat: Chat,
    bus: EventBus,
    spent_models: set[str],
    config: ExecutorConfig,
    parts: list[Part],
    state: RunState,
    prompt_id: str,
    cancel: asyncio.Event,
) -> None:
    """Let the router pick this prompt's model; its call's tokens count as usage.

    A cancel ends the classifier call at once, retries and all, and the loop then ends
    the prompt before any turn. Past a cap the router is not asked (the loop then says
    why no turn starts)."""
    router = config.router
    assert router is not None
    if config.budget is not None and config.budget.refusal(router.classifier, config.prices):
        return
    history = chat.curated_history()
    choice = router.choose(history, parts, prompt_id, spent=frozenset(spent_models))
    finished = await until_cancelled(choice, cancel)
    if finished is None:
        return
    decision = finished.value
    if decision.spent is not None:
        spent_models.add(decision.spent)
    chat.set_model(decision.model)
    cost = cost_of(decision.usage, price_for(router.classifier, config.prices))
    state.add(router.classifier, decision.usage, cost)
    bus.emit(
        ModelRouted,
        model=decision.model,
        reason=decision.reason,
        router_model=router.classifier,
        usage=decision.usage,
        fell_back=decision.fell_back,
    )


async def model_goes_on(
    config: ExecutorConfig,
    chat: Chat,
    outcome: TurnOutcome,
    cancel: asyncio.Event,
    state: RunState,
) -> bool:
    """True when the model should be sent "Please continue." after a text answer."""
    check = config.next_speaker
    if check is None or config.output_schema is not None:
        return False
    if config.budget is not None and config.budget.refusal(chat.model, config.prices):
        return False  # no side call past a cap: the answer stands
    if not "".join(outcome.text).strip() or cancel.is_set():
        return False
    asked = check.ask(chat.curated_history(), chat.model, current_prompt_id.get())
    finished = await until_cancelled(asked, cancel)
    if finished is None:
        return False
    verdict = finished.value
    cost = cost_of(verdict.usage, price_for(verdict.model, config.prices))
    state.add(verdict.model, verdict.usage, cost)
    if config.budget is not None:
        config.budget.count(verdict.model, verdict.usage)
    return verdict.speaker == "model" and not cancel.is_set()
