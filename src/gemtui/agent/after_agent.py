"""AfterAgent around a finished prompt (Gemini CLI's retry): a hook that rejects the
answer sends the agent back with its reason as the next user message.

Kept apart from the executor so its loop reads as a loop; ``stop_hook_active`` (the
``retrying`` flag) tells the hook it is judging a retry, and ``MAX_AGENT_RETRIES`` bounds a
hook that never accepts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from gemtui.agent.run_state import MAX_AGENT_RETRIES, AgentHooks
from gemtui.bus import ErrorOccurred, EventBus, TerminateReason
from gemtui.wire import Content

__all__ = ["check_answer"]


async def check_answer(
    hooks: AgentHooks,
    bus: EventBus,
    prompt: str,
    reason: TerminateReason,
    answer: Callable[[], str],
    again: Callable[[Content], Awaitable[tuple[TerminateReason, Any]]],
    clear: Callable[[], None],
) -> TerminateReason:
    """Ask AfterAgent of each finished answer (``answer()``, the prompt's text so far); on a
    rejection run ``again`` with its reason, at most ``MAX_AGENT_RETRIES`` times. A hook's
    ``clearContext`` empties the model's history (``clear``), with a stop or a retry."""
    retries = 0
    while reason == TerminateReason.GOAL and not hooks.stopped:
        feedback = await hooks.after_agent(prompt, answer(), retrying=retries > 0)
        if hooks.clear_context:
            clear()
        if feedback is None or hooks.stopped:
            break
        if retries == MAX_AGENT_RETRIES:
            why = f"AfterAgent rejected the answer {retries + 1} times; it stands as it is."
            bus.emit(ErrorOccurred, message=why, kind="warning")
            break
        retries += 1
        reason, _ = await again(Content.user(feedback))
    return reason
