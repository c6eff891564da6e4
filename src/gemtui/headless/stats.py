"""The figures a headless run reports: tokens, turns, cost and the limits left.

Apart from the formatters so ``json`` and ``stream-json`` build their stats the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec.structs import asdict

if TYPE_CHECKING:
    from gemtui.bus import AgentFinished
    from gemtui.bus.rate_limits import RateLimits

__all__ = ["stats_of"]


def stats_of(
    done: AgentFinished, limits: RateLimits | None = None, *, truncated: bool = False
) -> dict[str, Any]:
    """The run's figures; ``limits`` the providers' rate limits as last seen (None: none
    said); ``truncated`` when an answer of the conversation was cut by its output bound."""
    stats: dict[str, Any] = {
        "models": {m: asdict(u) for m, u in done.usage_by_model.items()},
        "tokens": asdict(done.usage),
        "turns": done.turns,
        "duration_ms": round(done.duration_ms, 1),
        "terminate_reason": str(done.reason),
        "cost_usd": None if done.cost is None else round(done.cost, 6),
        "rate_limits": None if limits is None else limits.as_stats(),
    }
    if done.usage_by_agent:  # what the subagents took of it, by agent
        stats["agents"] = {
            name: {
                **asdict(usage),
                "cost_usd": round(done.cost_by_agent[name], 6)
                if name in done.cost_by_agent
                else None,
                "turns": done.turns_by_agent.get(name, 0),
            }
            for name, usage in done.usage_by_agent.items()
        }
    if done.turns_by_agent:  # ``turns`` counts the conversation's own; the subagents' apart
        stats["subagent_turns"] = sum(done.turns_by_agent.values())
    if truncated:  # never silent: a script reads that the answer is incomplete
        stats["truncated"] = True
    if done.fallbacks:  # never silent: each switch the run took
        stats["fallbacks"] = [f.moved for f in done.fallbacks]
    return stats
