"""What the fallback offers and when (``agent.fallback``): only an exhausted quota or an
overloaded model, never a model already run out, and a price that is never "$0" when
unknown."""

from __future__ import annotations

import asyncio

from gemtui.agent.fallback import fallback_offer, price_text, refusal, switch_always
from gemtui.errors import ApiError


def test_a_model_with_no_known_price_says_unknown_price() -> None:
    assert price_text("qwen3-coder") == "unknown price"
    assert price_text("gemini-2.5-flash") == "$0.30 in / $2.50 out per 1M tokens"
    assert price_text("qwen3-coder", {"input": 1, "output": 2}) == (
        "$1.00 in / $2.00 out per 1M tokens"
    )


def test_only_quota_and_overload_errors_are_offered_a_switch() -> None:
    chain = ("b", "c")
    for status in (400, 401, 404, 500):
        assert fallback_offer(ApiError(status, "no"), "a", chain, (set(),), {}) is None
    assert fallback_offer(RuntimeError("boom"), "a", chain, (set(),), {}) is None
    offer = fallback_offer(ApiError(529, "Overloaded"), "a", chain, (set(),), {})
    assert offer is not None
    assert (offer.from_model, offer.to_model) == ("a", "b")
    assert offer.reason == "model overloaded: Overloaded"
    assert offer.price == "unknown price"


def test_a_model_already_run_out_is_not_offered_again() -> None:
    exhausted: set[str] = set()
    spent: set[str] = set()
    first = fallback_offer(ApiError(429, "q"), "a", ("b", "a"), (exhausted, spent), {})
    assert first is not None
    assert first.to_model == "b"
    assert asyncio.run(refusal(first, switch_always)) == ""  # the switch happens
    assert fallback_offer(ApiError(429, "q"), "b", ("b", "a"), (exhausted, spent), {}) is None
    assert exhausted == spent == {"a", "b"}


def test_nobody_to_ask_means_no_switch_and_says_the_flag() -> None:
    offer = fallback_offer(ApiError(429, "q"), "a", ("b",), (set(),), {})
    assert offer is not None
    said = asyncio.run(refusal(offer, None))
    assert "--fallback" in said
    assert "would have switched to b" in said
    assert asyncio.run(refusal(offer, switch_always)) == ""


def test_a_refused_switch_leaves_the_model_to_the_router() -> None:
    """A 503 once marked the model spent for the whole session even when the person
    refused the switch, so ``auto`` silently avoided it from then on. Only a switch
    that happens marks it; the prompt's own set is marked either way (it ends)."""

    async def no(offer: object) -> bool:
        return False

    for ask, marked in ((no, set()), (None, set()), (switch_always, {"a"})):
        exhausted: set[str] = set()
        session: set[str] = set()
        offer = fallback_offer(ApiError(503, "busy"), "a", ("b",), (exhausted, session), {})
        assert offer is not None
        asyncio.run(refusal(offer, ask))
        assert exhausted == {"a"}
        assert session == marked, ask
