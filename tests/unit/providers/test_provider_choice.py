"""Choosing and building providers from flags, settings and the environment."""

from __future__ import annotations

import pytest

from gemtui.agent.provider_choice import list_models, resolve_provider
from gemtui.config.settings import ProviderSettings, Settings
from gemtui.errors import FatalAuthenticationError, FatalConfigError
from gemtui.providers.anthropic import AnthropicGenerator
from gemtui.providers.openai_compat import OpenAICompatGenerator
from gemtui.providers.retry import RetryingGenerator
from gemtui.providers.text_tools import TextToolsGenerator


def _inner(gen: object) -> object:
    assert isinstance(gen, RetryingGenerator)
    return gen.inner


def test_openai_from_environment_without_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    resolved = resolve_provider(Settings())
    inner = _inner(resolved.generator)
    assert resolved.name == "openai"
    assert resolved.kind == "openai"
    assert isinstance(inner, OpenAICompatGenerator)
    assert inner._base == "http://127.0.0.1:9/v1"
    assert inner._api_key is None
    assert resolved.model == "gpt-4o-mini"


def test_named_openai_provider_with_text_tools() -> None:
    conf = ProviderSettings(
        kind="openai", base_url="http://h/v1", models=["qwen3"], fallback=["qwen3", "small"]
    )
    settings = Settings(providers={"local": conf})
    resolved = resolve_provider(settings, provider="local")
    inner = _inner(resolved.generator)
    assert isinstance(inner, TextToolsGenerator) is False
    assert resolved.model == "qwen3"
    assert resolved.settings.fallback == ["qwen3", "small"]
    conf.text_tools = True
    assert isinstance(
        _inner(resolve_provider(settings, provider="local").generator), TextToolsGenerator
    )
    forced = resolve_provider(
        Settings(providers={"l2": ProviderSettings(kind="openai", base_url="http://h/v1")}),
        provider="l2",
        text_tools=True,
    )
    wrapped = _inner(forced.generator)
    assert isinstance(wrapped, TextToolsGenerator)
    assert wrapped.name == "l2"


def test_named_openai_provider_needs_base_url() -> None:
    settings = Settings(providers={"local": ProviderSettings(kind="openai")})
    with pytest.raises(FatalConfigError, match=r"providers\.local\.base_url"):
        resolve_provider(settings, provider="local")


def test_anthropic_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FatalAuthenticationError, match="ANTHROPIC_API_KEY"):
        resolve_provider(Settings(), provider="anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://h")
    resolved = resolve_provider(Settings(), provider="anthropic")
    inner = _inner(resolved.generator)
    assert isinstance(inner, AnthropicGenerator)
    assert inner._base == "http://h"
    assert resolved.context_window == 200_000


def test_list_models_across_configured_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    settings = Settings(
        providers={
            "local": ProviderSettings(
                kind="openai", base_url="http://h/v1", models=["qwen3", "llama"], fallback=["tiny"]
            )
        }
    )
    pairs = list_models(settings)
    assert ("local", "qwen3") in pairs
    assert ("local", "tiny") in pairs
    assert ("anthropic", "claude-sonnet-4-5") in pairs
    assert not any(p == "gemini" for p, _ in pairs)  # no key, not configured
