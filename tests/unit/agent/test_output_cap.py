"""The cap each provider kind gets, and the bound the window's room makes of it."""

from __future__ import annotations

import pytest

from gemtui.agent.output_cap import default_output_cap, output_bound_for
from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.chat.output_bound import OUTPUT_FLOOR, room_for_answer
from gemtui.config.settings import ProviderSettings
from gemtui.providers.replay import ReplayGenerator


def _provider(kind: str, window: int = 1_048_576, base_url: str | None = None) -> ResolvedProvider:
    settings = ProviderSettings.model_validate({"kind": kind, "base_url": base_url})
    return ResolvedProvider("p", kind, ReplayGenerator([]), "m", window, settings)


@pytest.mark.parametrize(
    ("kind", "model", "base_url", "cap"),
    [
        ("gemini", "gemini-2.5-pro", None, 65_536),
        ("code-assist", "gemini-2.5-flash", None, 65_536),
        ("vertex", "gemini-2.0-flash", None, 8192),  # the API refuses more for 2.0
        ("anthropic", "claude-sonnet-4", None, 8192),
        ("openai", "qwen", "http://127.0.0.1:8080/v1", 8192),
        ("openai", "gpt-4o", "https://api.openai.com/v1", None),  # its own per-model limits
    ],
)
def test_each_kind_gets_the_cap_its_models_take(
    kind: str, model: str, base_url: str | None, cap: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert default_output_cap(_provider(kind, base_url=base_url), model) == cap


def test_the_setting_wins_and_the_window_lowers_it_to_a_floor() -> None:
    local = _provider("openai", window=8192, base_url="http://127.0.0.1:8080/v1")
    assert output_bound_for(local, "qwen", 300, 100) == 300
    assert output_bound_for(local, "qwen", None, 100) == 8192 - 100 - 8192 // 16
    assert output_bound_for(local, "qwen", None, 8000) == OUTPUT_FLOOR  # full: still an end
    assert room_for_answer(8192, 4232, 8192) == 8192 - 4232 - 512
