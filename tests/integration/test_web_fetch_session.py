"""web_fetch in a session: approval first (the card shows the URLs), settings decide where."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gemtui.bus import (
    ApprovalDecision,
    Decision,
    Event,
    TerminateReason,
    ToolCallState,
    ToolCallStateChanged,
)
from gemtui.config.settings import Settings, load_settings
from gemtui.errors import FatalConfigError
from gemtui.testing import MockLLMServer
from tests.support.pages_server import Seen, serve_pages

from .conftest import SessionFactory


@pytest.fixture
def pages() -> Iterator[tuple[str, Seen]]:
    with serve_pages() as served:
        yield served


def _response(request_json: dict[str, Any]) -> dict[str, Any]:
    part = request_json["contents"][-1]["parts"][0]
    return dict(part["functionResponse"]["response"])


def _fetch_step(url: str) -> dict[str, Any]:
    call = {"name": "web_fetch", "args": {"prompt": f"Summarise {url}"}, "id": "f1"}
    return {"function_calls": [call]}


def test_settings_section(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[tools.web_fetch]\nallow_private = true\nallow = ["intranet.lan"]\n')
    wf = load_settings(user_file=cfg).tools.web_fetch
    assert wf.allow_private is True
    assert wf.allow == ["intranet.lan"]
    assert load_settings(user_file=tmp_path / "none.toml").tools.web_fetch.allow_private is False
    cfg.write_text("[tools.web_fetch]\nmax_redirects = -1\n")
    with pytest.raises(FatalConfigError, match=r"tools\.web_fetch\.max_redirects"):
        load_settings(user_file=cfg)


async def test_asks_with_the_urls_then_fetches_when_allowed(
    mock_llm: MockLLMServer, make_session: SessionFactory, pages: tuple[str, Seen]
) -> None:
    base, seen = pages
    settings = Settings.model_validate({"tools": {"web_fetch": {"allow_private": True}}})
    mock_llm.enqueue(_fetch_step(f"{base}/page"), {"text": "done"})
    events: list[Event] = []
    session = make_session(interactive=True, settings=settings, events=events)
    asked: list[tuple[str, ...]] = []

    def approve(ev: Event) -> None:
        if (
            isinstance(ev, ToolCallStateChanged)
            and ev.call.state == ToolCallState.AWAITING_APPROVAL
        ):
            conf = ev.call.confirmation
            assert conf is not None
            assert conf.kind == "fetch"
            asked.append(conf.urls)
            assert seen.requests == []  # nothing fetched before the person said yes
            corr = ev.call.correlation_id
            assert corr is not None
            decision = Decision(ApprovalDecision.ALLOW_ONCE)
            asyncio.get_running_loop().call_soon(session.bus.decide, corr, decision)

    session.bus.subscribe(approve)
    done = await session.send("read the guide")
    assert done.reason == TerminateReason.GOAL
    assert asked == [(f"{base}/page",)]
    output = _response(mock_llm.requests[1].json)["output"]
    assert f"--- Content from {base}/page ---" in output
    assert "# Install" in output


async def test_headless_default_mode_refuses_without_fetching(
    mock_llm: MockLLMServer, make_session: SessionFactory, pages: tuple[str, Seen]
) -> None:
    base, seen = pages
    settings = Settings.model_validate({"tools": {"web_fetch": {"allow_private": True}}})
    mock_llm.enqueue(_fetch_step(f"{base}/page"), {"text": "ok"})
    session = make_session(interactive=False, settings=settings)
    await session.send("read")
    assert "error" in _response(mock_llm.requests[1].json)
    assert seen.requests == []


async def test_yolo_still_cannot_reach_loopback_without_the_setting(
    mock_llm: MockLLMServer, make_session: SessionFactory, pages: tuple[str, Seen]
) -> None:
    base, seen = pages
    mock_llm.enqueue(_fetch_step(f"{base}/page"), {"text": "ok"})
    session = make_session(approval_mode="yolo")
    await session.send("read")
    error = _response(mock_llm.requests[1].json)["error"]
    assert "is refused" in error
    assert "allow_private = true" in error
    assert seen.requests == []
