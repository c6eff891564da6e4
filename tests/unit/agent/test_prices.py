"""The price table says where each figure came from, and a person's own prices win."""

from __future__ import annotations

import re

from gemtui.agent.prices import PRICES, SOURCES, PriceBook, price_for, price_origin


def test_every_known_price_names_its_page_and_the_day_it_was_taken() -> None:
    for model in PRICES:
        origin = price_origin(model)
        assert origin is not None, model
        assert origin.startswith("https://"), model
        assert re.search(r"\(taken \d{4}-\d{2}-\d{2}\)$", origin), origin
    assert all(s.url.startswith("https://") for s in SOURCES.values())


def test_a_settings_price_wins_for_its_exact_model_only() -> None:
    book = PriceBook(None, {"gemini-2.5-flash": {"input": 2.0, "output": 4.0}})
    assert price_for("gemini-2.5-flash", book) == {"input": 2.0, "output": 4.0, "cached": 0.075}
    assert price_origin("gemini-2.5-flash", book) == 'your settings ([prices."gemini-2.5-flash"])'
    assert price_for("gemini-2.5-flash-lite", book) == PRICES["gemini-2.5-flash-lite"]
    # over a provider's flat prices too: the exact model is the more specific
    flat = PriceBook({"input": 9.0}, book.models)
    assert price_for("gemini-2.5-flash", flat)["input"] == 2.0  # type: ignore[index]


def test_no_book_is_the_built_in_table_whatever_another_book_says() -> None:
    """No process-wide table: a book built for one session (or one view) prices only
    the calls it is passed to."""
    other = PriceBook(None, {"gemini-2.5-flash": {"input": 99.0, "output": 99.0}})
    assert price_for("gemini-2.5-flash", other)["input"] == 99.0  # type: ignore[index]
    assert price_for("gemini-2.5-flash") == PRICES["gemini-2.5-flash"]
    assert price_for("gemini-2.5-flash", {"output": 1.0})["input"] == 0.30  # type: ignore[index]


def test_a_settings_price_gives_an_unknown_model_a_price() -> None:
    assert price_for("local-llama") is None
    assert price_origin("local-llama") is None
    book = PriceBook(None, {"local-llama": {"input": 0.0, "output": 0.0}})
    assert price_for("local-llama", book) == {"input": 0.0, "output": 0.0}
    assert price_origin("local-llama", book) == 'your settings ([prices."local-llama"])'


def test_the_providers_prices_are_said_to_be_the_settings() -> None:
    assert price_origin("gpt-4o", {"output": 1.0}) == "your settings (the provider's prices)"
