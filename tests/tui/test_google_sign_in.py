"""Signing in with Google inside the TUI, and working over Code Assist (the mock's)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gemtui.bus.events import AccountStatus, AgentFinished, SessionStarted
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.sign_in import SignInScreen
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, replace_step

BROWSER_SCRIPT = """
import sys, httpx
httpx.get(sys.argv[1], follow_redirects=True, timeout=10)
"""


@pytest.fixture
def google(mock_llm: MockLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The OAuth and Code Assist endpoints are the mock's; the browser is a script."""
    browser = tmp_path / "browser"
    browser.write_text(f"#!{sys.executable}\n{BROWSER_SCRIPT}", encoding="utf-8")
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))
    monkeypatch.setenv("GEMTUI_OAUTH_AUTH_URL", f"{mock_llm.url}/auth")
    monkeypatch.setenv("GEMTUI_OAUTH_TOKEN_URL", f"{mock_llm.url}/token")
    monkeypatch.setenv("CODE_ASSIST_ENDPOINT", mock_llm.url)
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("google")
async def test_welcome_sign_in_then_approve_a_tool_call_over_code_assist(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    target = workspace / "greeting.txt"
    target.write_text("hello world\n")
    mock_llm.account.require_token = True
    mock_llm.enqueue(replace_step("greeting.txt", "world", "gemtui"), {"text": "Renamed."})
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        await pilot.pause()
        await app.screen.workers.wait_for_complete()
        await pilot.click("#google")
        await seen.wait_event(SessionStarted)
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "code-assist"
        assert app.main.status.provider == "code-assist"
        account = await seen.wait_event(AccountStatus)
        assert account.tier == "free-tier"
        assert account.email == "mock-user@example.com"
        await pilot.press(*"rename it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert "free-tier" in " ".join(app.main.usage.account_lines())
        assert "gemini-2.5-pro: 75% left" in app.main.usage.account_lines()[1]
    assert target.read_text() == "hello gemtui\n"
    generate = [r for r in mock_llm.requests if r.path == "/v1internal:streamGenerateContent"]
    assert len(generate) == 2
    assert generate[-1].json["project"] == "mock-project"


@pytest.mark.usefixtures("google")
async def test_auth_command_moves_a_running_session_to_the_google_account(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": "over code assist"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        app.run_slash("/auth")  # the scripted browser consents at once
        await seen.wait_event(AccountStatus)
        await pilot.pause()
        assert app.session is not None
        assert app.session.provider.name == "code-assist"
        await pilot.press(*"hi", "enter")
        await seen.wait_event(AgentFinished)
    assert mock_llm.requests[-1].path == "/v1internal:streamGenerateContent"


@pytest.mark.usefixtures("google")
async def test_a_revoked_grant_opens_the_sign_in_dialog(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mock_llm.account.require_token = True
    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        await pilot.pause()
        await app.screen.workers.wait_for_complete()
        await pilot.click("#google")
        await seen.wait_event(AccountStatus)
        await pilot.pause()
        mock_llm.account.revoke()
        monkeypatch.setenv("BROWSER", "true")  # this time nobody consents: the dialog stays
        await pilot.press(*"hi", "enter")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert isinstance(app.screen, SignInScreen)
        assert "gemtui auth login" in str(app.screen.query_one("#sign-in-reason").render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SignInScreen)


async def test_a_daily_quota_on_pro_switches_to_flash_and_the_transcript_says_so(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from gemtui.tui.screens.dialogs import FallbackScreen
    from gemtui.tui.widgets.transcript_blocks import NoticeBlock

    quota = {
        "status": 429,
        "message": "Quota exceeded. Please retry in 31.5s.",
        "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
    }
    mock_llm.enqueue({"error": quota}, {"text": "answered by flash"})
    app = make_app(make_session(mock_llm.url, workspace, model="gemini-2.5-pro"), workspace)
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        await pilot.press(*"hi", "enter")
        # never silently (issue 37): the switch is asked first, then said
        await seen.wait_for(lambda m: isinstance(app.screen, FallbackScreen))
        await pilot.press("f8", "s")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        notices = [b.text for b in app.main.transcript._blocks.blocks if isinstance(b, NoticeBlock)]
        assert any("Switched to gemini-2.5-flash" in n for n in notices), notices
        assert app.main.status.model == "gemini-2.5-flash"
    assert mock_llm.requests[-1].path.endswith("gemini-2.5-flash:streamGenerateContent")
