"""What the fallback offers and when (``agent.fallback``): only an exhausted quota or an
overloaded model, never a model already run out, and a price that is never "$0" when
unknown."""

from __future__ import annotations

import asyncio

from gemtui.agent.fallback import fallback_offer, price_text, refusal, switch_always
from gemtui.config.fallback_entries import entry_problem, split_entry
from gemtui.config.settings import ModelSettings, ProviderSettings, Settings
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


def test_an_entry_naming_a_provider_moves_there_priced_by_its_own_figures_later() -> None:
    known = {"gemini", "openai"}
    offer = fallback_offer(
        ApiError(429, "q"),
        "gemini-2.5-pro",
        ("openai:gpt-4o",),
        (set(),),
        {},
        provider="gemini",
        known=known,
    )
    assert offer is not None
    assert (offer.to_provider, offer.to_model) == ("openai", "gpt-4o")
    assert (offer.source, offer.target) == ("gemini:gemini-2.5-pro", "openai:gpt-4o")
    assert offer.price == "$2.50 in / $10.00 out per 1M tokens"  # the known table's


def test_a_model_name_with_its_own_colon_stays_on_the_provider_in_use() -> None:
    offer = fallback_offer(
        ApiError(503, "busy"),
        "qwen3:32b",
        ("qwen3:8b",),
        (set(),),
        {},
        provider="ollama",
        known={"ollama", "openai"},
    )
    assert offer is not None
    assert (offer.to_provider, offer.to_model, offer.target) == ("ollama", "qwen3:8b", "qwen3:8b")


def test_a_chain_across_providers_never_goes_back_to_one_run_out() -> None:
    """gemini:pro → openai:x → back to gemini:pro would loop forever under --fallback."""
    tried: set[str] = set()
    chain = ("openai:x", "gemini:gemini-2.5-pro")
    known = {"gemini", "openai"}
    first = fallback_offer(
        ApiError(429, "q"), "gemini-2.5-pro", chain, (tried,), {}, provider="gemini", known=known
    )
    assert first is not None
    assert first.target == "openai:x"
    again = fallback_offer(
        ApiError(429, "q"), "x", chain, (tried,), {}, provider="openai", known=known
    )
    assert again is None
    assert {"gemini:gemini-2.5-pro", "openai:x"} <= tried


def test_entries_that_meant_a_provider_nobody_configured_are_refused() -> None:
    known = {"gemini", "openai", "anthropic", "ollama"}
    for fine in ("gemini-2.5-flash", "openai:gpt-4o", "qwen3:8b", "llama3.1:70b", "gemma2:9b"):
        assert entry_problem(fine, known) is None, fine
    for meant in ("opnai:gpt-4o", "google:gemini-2.5-flash", "lmstudio:qwen3:8b", "openai:"):
        assert entry_problem(meant, known) is not None, meant
    assert split_entry("qwen3:8b", known) == (None, "qwen3:8b")
    assert split_entry("ollama:qwen3:8b", known) == ("ollama", "qwen3:8b")


def test_model_fallback_names_every_entrys_provider_in_order() -> None:
    """Bare entries belong to the provider in use when the list is taken, so moving to
    another provider never sends them there."""
    settings = Settings(
        model=ModelSettings(fallback=["gemini-2.5-flash", "openai:gpt-4o", "qwen3:8b"]),
        providers={"local": ProviderSettings(kind="openai", base_url="http://127.0.0.1:1/v1")},
    )
    assert settings.model_fallback("gem") == [
        "gem:gemini-2.5-flash",
        "openai:gpt-4o",
        "gem:qwen3:8b",
    ]
    assert Settings().model_fallback("gem") == []


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
