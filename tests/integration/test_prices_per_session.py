"""Each session keeps its own ``[prices."MODEL"]``: ACP and the fleet build many sessions
in one process, and building workspace B's must never change what A's calls cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.assembly import RunOptions, build_session
from gemtui.config.settings import Settings
from gemtui.testing import MockLLMServer

MILLION = {"prompt": 1_000_000, "output": 0}


def _settings(url: str, usd_in: float) -> Settings:
    return Settings.model_validate(
        {
            "providers": {"gemini": {"kind": "gemini", "base_url": url}},
            "prices": {"house-model": {"input": usd_in, "output": 1.0}},
        }
    )


async def test_two_sessions_in_one_process_keep_their_own_prices(
    mock_llm: MockLLMServer,
    isolated_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ($1 a million) is built, then B ($10): A's call still costs $1, B's $10 (the
    control: B's price is really in force in the same process)."""
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    built = []
    for name, usd in (("a", 1.0), ("b", 10.0)):
        ws = tmp_path / name
        ws.mkdir()
        options = RunOptions(ws, model="house-model")
        built.append(build_session(_settings(mock_llm.url, usd), options, trusted=True))
    mock_llm.enqueue({"text": "a", "usage": MILLION}, {"text": "b", "usage": MILLION})
    try:
        a = await built[0].session.send("hi")
        b = await built[1].session.send("hi")
    finally:
        for one in built:
            await one.session.aclose()
            one.close()
    assert a.cost == pytest.approx(1.0)
    assert b.cost == pytest.approx(10.0)
