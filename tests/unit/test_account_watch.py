"""The account's quota is asked at most once a minute, and "unknown" is never a number."""

from __future__ import annotations

from gemtui.agent.account_watch import AccountWatch
from gemtui.auth.refresh import TokenSource
from gemtui.bus import AccountStatus, EventBus, quota_lines
from gemtui.providers.code_assist import CodeAssistGenerator
from gemtui.providers.http import make_client
from gemtui.providers.retry import RetryingGenerator
from gemtui.testing import MockLLMServer


def _provider(srv: MockLLMServer) -> CodeAssistGenerator:
    client = make_client()
    return CodeAssistGenerator(client, TokenSource(srv.account.grant()), endpoint=srv.url)


async def test_quota_is_published_and_throttled(mock_llm: MockLLMServer) -> None:
    bus = EventBus("s1")
    seen: list[AccountStatus] = []
    bus.subscribe(lambda e: seen.append(e) if isinstance(e, AccountStatus) else None)
    provider = _provider(mock_llm)
    watch = AccountWatch(bus, "s1")
    watch.bind(RetryingGenerator(provider))  # found inside its wrapper
    assert provider.session_id == "s1"
    watch.refresh_soon()
    assert watch._task is not None
    await watch._task
    watch.refresh_soon()  # within the minute: no second look-up
    assert watch._task.done()
    quota_calls = [r for r in mock_llm.requests if r.path == "/v1internal:retrieveUserQuota"]
    assert len(quota_calls) == 1
    assert quota_calls[0].json == {"project": "mock-project"}
    [status] = seen
    assert status.tier == "free-tier"
    assert status.project == "mock-project"
    assert status.quota is not None
    assert {q.model for q in status.quota} == {"gemini-2.5-pro", "gemini-2.5-flash"}
    assert quota_lines(status.quota)[0].startswith("gemini-2.5-pro: 75% left, resets 20")
    await watch.aclose()
    await provider.aclose()


async def test_a_failed_quota_call_is_unknown(mock_llm: MockLLMServer) -> None:
    mock_llm.account.quota_status = 500
    bus = EventBus("s2")
    provider = _provider(mock_llm)
    watch = AccountWatch(bus, "s2")
    watch.bind(provider)
    status = await watch.refresh()
    assert status is not None
    assert status.quota is None
    assert quota_lines(status.quota) == ["quota: unknown"]
    await provider.aclose()


async def test_no_account_no_look_up(mock_llm: MockLLMServer) -> None:
    watch = AccountWatch(EventBus("s3"), "s3")
    watch.bind(object())
    watch.refresh_soon()
    assert watch._task is None
    assert await watch.refresh() is None
    assert mock_llm.requests == []
