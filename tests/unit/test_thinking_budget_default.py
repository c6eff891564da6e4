"""Claude's extended thinking is the provider's setting (off unless a budget is given)."""

from __future__ import annotations

import pytest

from gemtui.agent.provider_choice import resolve_provider
from gemtui.config.settings import ProviderSettings, Settings


@pytest.mark.parametrize(("configured", "expected"), [(None, 0), (0, 0), (2048, 2048)])
def test_the_budget_reaches_the_anthropic_provider(
    configured: int | None, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    conf = ProviderSettings(
        kind="anthropic", **({} if configured is None else {"thinking_budget": configured})
    )
    settings = Settings(providers={"claude": conf})
    resolved = resolve_provider(settings, provider="claude")
    assert resolved.generator.inner.thinking_budget == expected  # type: ignore[attr-defined]


def test_a_budget_the_api_would_refuse_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="at least 1024"):
        ProviderSettings(kind="anthropic", thinking_budget=500)
