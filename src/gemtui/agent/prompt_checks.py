"""The two model calls around a prompt's turns that are not turns: routing (``-m auto``
picks Flash or Pro before the first turn) and the next-speaker check (after a text-only
answer, did the model mean to go on?). Both race the prompt's cancel like every model
call, and both count their tokens in the prompt's usage."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from gemtui.agent.cancellable import until_cancelled
from gemtui.agent.router import ModelRouter
from gemtui.agent.run_state import RunState, TurnOutcome
from gemtui.bus import ModelRouted, current_prompt_id
from gemtui.wire import Part

if TYPE_CHECKING:
    from gemtui.agent.executor import Executor

__all__ = ["model_goes_on", "route_prompt"]


async def route_prompt(
    executor: Executor,
    router: ModelRouter,
    parts: list[Part],
    state: RunState,
    prompt_id: str,
    cancel: asyncio.Event,
) -> None:
    """Let the router pick this prompt's model; its call's tokens count as usage.

    A cancel ends the classifier call at once, retries and all, and the loop then ends
    the prompt before any turn."""
    history = executor.chat.curated_history()
    choice = router.choose(history, parts, prompt_id, spent=frozenset(executor.spent_models))
    finished = await until_cancelled(choice, cancel)
    if finished is None:
        return
    decision = finished.value
    if decision.spent is not None:
        executor.spent_models.add(decision.spent)
    executor.chat.set_model(decision.model)
    state.add(router.classifier, decision.usage)
    executor.bus.emit(
        ModelRouted,
        model=decision.model,
        reason=decision.reason,
        router_model=router.classifier,
        usage=decision.usage,
        fell_back=decision.fell_back,
    )


async def model_goes_on(
    executor: Executor, outcome: TurnOutcome, cancel: asyncio.Event, state: RunState
) -> bool:
    """True when the model should be sent "Please continue." after a text answer."""
    check = executor.config.next_speaker
    if check is None or executor.config.output_schema is not None:
        return False
    if not "".join(outcome.text).strip() or cancel.is_set():
        return False
    history = executor.chat.curated_history()
    asked = check.ask(history, executor.chat.model, current_prompt_id.get())
    finished = await until_cancelled(asked, cancel)
    if finished is None:
        return False
    verdict = finished.value
    state.add(verdict.model, verdict.usage)
    return verdict.speaker == "model" and not cancel.is_set()
