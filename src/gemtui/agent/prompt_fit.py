"""Fitting the prompt to the model: its real context window and the tool guidance form.

A local server knows the window it was started with (``llama-server -c 8192``); the
settings seldom say, and a guess from the model name is wrong for every local model.
So before the first prompt the server is asked once (``context_probe``), unless the
settings give the window, and the tool guidance form follows from the answer, and with
it whether tool calls are decoded under a grammar (``providers.constrained_tools``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemtui.agent.stream_loop import StreamLoopDetector
from gemtui.providers.chain import generator_chain
from gemtui.providers.tool_guidance import wants_compact

if TYPE_CHECKING:
    from gemtui.agent.provider_choice import ResolvedProvider

__all__ = ["fit_prompt"]


async def fit_prompt(provider: ResolvedProvider, model: str, watch_loops: bool = False) -> bool:
    """Learn the window from the server when the settings do not give it (updating
    ``provider.context_window``); returns whether tools get the compact description.
    ``watch_loops``: text a provider holds back (a call under the grammar) also goes
    through the stream loop check, else a loop there is never seen."""
    if not provider.settings.context_window:
        for gen in generator_chain(provider.generator):
            learn = getattr(gen, "learn_context_window", None)
            if learn is not None:
                window = await learn(model)
                if isinstance(window, int) and window > 0:
                    provider.context_window = window
                break
    compact = wants_compact(provider.settings.tool_descriptions, provider.context_window)
    chain = list(generator_chain(provider.generator))
    # the text-tools wrapper is the one with a guidance form (duck-typed, as below: its
    # module, with its parsers, loads only for a provider that uses it)
    text_tools = [gen for gen in chain if hasattr(gen, "compact")]
    for gen in text_tools:
        gen.compact = compact
    for gen in chain:
        if hasattr(gen, "loop_watch"):
            gen.loop_watch = StreamLoopDetector if watch_loops else None
    if not text_tools:  # text tools declare nothing natively: there is no call to constrain
        for gen in chain:
            decide = getattr(gen, "decide_constrained_tools", None)
            if decide is not None:
                await decide(compact)
    return compact
