"""The TUI records its session, resumes saved ones (flag and /sessions) and switches models."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished, ModelChanged
from gemtui.config.settings import Settings
from gemtui.store import SessionStore
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from tests.tui.conftest import make_session
from tests.tui.helpers import Messages, engine_started, group_done, turns_done


def _settings_for(url: str) -> Settings:
    return Settings.model_validate(
        {
            "general": {"provider": "mock"},
            "providers": {
                "mock": {"kind": "gemini", "base_url": url, "models": ["gemini-2.5-pro"]},
                "local": {
                    "kind": "openai",
                    "base_url": f"{url}/v1",
                    "models": ["qwen3-coder", "qwen3:8b"],
                },
            },
            "network": {"max_attempts": 1, "stream_retry_delays": []},
        }
    )


async def test_tui_records_then_resume_flag_replays_and_continues(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: object
) -> None:
    import os

    os.environ["GEMINI_API_KEY"] = "k"
    try:
        settings = _settings_for(mock_llm.url)
        mock_llm.enqueue({"text": "first answer"})
        app = build_app(settings, RunOptions(workspace=workspace))
        assert isinstance(app, GemtuiApp)
        seen = Messages()
        async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
            await pilot.press(*"first question", "enter")
            await seen.wait_event(AgentFinished)
            await turns_done(app)
        app.close_store()
        with SessionStore() as store:
            sessions = store.list_sessions()
            assert len(sessions) == 1
            assert sessions[0].title.startswith("first question")
            saved_id = sessions[0].id

        mock_llm.enqueue({"text": "second answer"})
        app2 = build_app(settings, RunOptions(workspace=workspace, resume="latest"))
        assert isinstance(app2, GemtuiApp)
        seen2 = Messages()
        async with app2.run_test(size=(120, 40), message_hook=seen2) as pilot:
            await engine_started(app2, seen2)  # in a thread, after the first frame
            await pilot.pause()
            assert app2.session is not None
            assert app2.session.id == saved_id
            messages = app2.main.transcript.messages()
            assert ("user", "first question") in messages
            assert any("first answer" in t for r, t in messages if r != "user")
            await pilot.press(*"second question", "enter")
            await seen2.wait_event(AgentFinished)
            await turns_done(app2)
        app2.close_store()
        contents = mock_llm.requests[-1].json["contents"]
        assert [c["parts"][0]["text"] for c in contents] == [
            "first question",
            "first answer",
            "second question",
        ]
    finally:
        del os.environ["GEMINI_API_KEY"]


async def test_unknown_resume_id_is_an_input_error(workspace: Path) -> None:
    app = build_app(Settings(), RunOptions(workspace=workspace, resume="no-such-session"))
    assert isinstance(app, GemtuiApp)
    stopped = asyncio.Event()
    exit_app = app.exit

    def exit_and_tell(*args: Any, **kwargs: Any) -> None:
        stopped.set()
        exit_app(*args, **kwargs)

    app.exit = exit_and_tell  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)):
        await asyncio.wait_for(stopped.wait(), 15)  # the engine starts in a thread
    assert app.return_code == 42
    assert app.exit_message
    assert "no-such-session" in app.exit_message


async def test_sessions_command_opens_browser_and_resumes_choice(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    with SessionStore() as store:
        sid = store.create_session(
            title="old work", workspace=str(workspace), provider="gemini", model="m"
        )
        from gemtui.wire import Content

        store.add_message(sid, "user", Content.user("old question"))
        store.add_message(sid, "model", Content.model("old answer"))
    store = SessionStore()
    session = make_session(mock_llm.url, workspace)
    app = GemtuiApp(
        settings=Settings(), session=session, workspace=workspace, raise_errors=True, store=store
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.run_slash("/sessions")
        await pilot.pause()
        from gemtui.tui.screens.sessions import SessionsScreen

        assert isinstance(app.screen, SessionsScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert app.session is not None
        assert app.session.id == sid
        assert ("user", "old question") in app.main.transcript.messages()
        assert len(app.session.chat.history) == 2
    app.close_store()


@pytest.mark.parametrize("model", ["qwen3-coder", "qwen3:8b"])
async def test_model_command_switches_provider_live(
    mock_llm: MockLLMServer, workspace: Path, model: str
) -> None:
    """``/model local:NAME`` moves the conversation to that provider's model; an Ollama
    name keeps its own colon (``local:qwen3:8b`` was read as provider ``local:qwen3``)."""
    import os

    os.environ["GEMINI_API_KEY"] = "k"
    try:
        settings = _settings_for(mock_llm.url)
        app = build_app(settings, RunOptions(workspace=workspace))
        assert isinstance(app, GemtuiApp)
        mock_llm.enqueue({"text": "gemini says hi"}, {"text": "qwen says hi"})
        seen = Messages()
        async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
            await pilot.press(*"hello", "enter")
            await seen.wait_event(AgentFinished)
            await turns_done(app)
            app.run_slash(f"/model local:{model}")
            await group_done(app, "model")
            assert app.session is not None
            assert app.session.provider.name == "local"
            await seen.wait_event(ModelChanged)  # the status line follows the event
            await pilot.pause()
            assert app.main.status.model == model
            count = len(seen.seen)
            await pilot.press(*"again", "enter")
            await seen.wait_event(AgentFinished, after=count)
            await turns_done(app)
        app.close_store()
        last = mock_llm.requests[-1]
        assert last.path == "/v1/chat/completions"
        assert last.json["model"] == model
        assert [m["content"] for m in last.json["messages"] if m["role"] != "system"] == [
            "hello",
            "gemini says hi",
            "again",
        ]
    finally:
        del os.environ["GEMINI_API_KEY"]


async def test_new_starts_a_fresh_conversation_and_keeps_the_last_one_saved(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    settings = _settings_for(mock_llm.url)
    mock_llm.enqueue({"text": "first answer"}, {"text": "fresh answer"})
    app = build_app(settings, RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"remember 42", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert app.session is not None
        first_id = app.session.id
        app.run_slash("/new")
        await pilot.pause()
        assert app.session.id != first_id
        assert app.main.transcript.messages() == []
        mark = len(seen.seen)
        await pilot.press(*"what did I say?", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await turns_done(app)
    app.close_store()
    sent = mock_llm.requests[-1].json
    texts = [p.get("text", "") for c in sent["contents"] for p in c["parts"]]
    assert "remember 42" not in " ".join(texts)  # the model starts afresh
    with SessionStore() as store:
        assert {s.id for s in store.list_sessions()} >= {first_id}
        assert len(store.list_sessions()) == 2


async def test_a_session_of_only_bang_commands_is_titled_by_the_first(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`!git status` and nothing else: the session is "!git status" in the list, not
    "(untitled)"; the control: a prompt after a `!` command titles the session itself."""
    from gemtui.bus.events import ToolCallStateChanged
    from gemtui.bus.values import ToolCallState
    from gemtui.tui.bridge import BusEvent

    monkeypatch.setenv("GEMINI_API_KEY", "k")
    settings = _settings_for(mock_llm.url)

    def ran(message: object) -> bool:
        return (
            isinstance(message, BusEvent)
            and isinstance(message.event, ToolCallStateChanged)
            and message.event.call.state == ToolCallState.SUCCESS
        )

    async def bang(then: str | None) -> str:
        app = build_app(settings, RunOptions(workspace=workspace))
        assert isinstance(app, GemtuiApp)
        seen = Messages()
        async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
            await engine_started(app, seen)
            await pilot.press(*"!git status", "enter")
            await seen.wait_approvals(1)
            await pilot.press("f8", "1")  # allow once
            await seen.wait_for(ran)
            await turns_done(app)
            if then is not None:
                await pilot.press("!", *then, "enter")  # "!" leaves shell mode first
                await seen.wait_event(AgentFinished)
                await turns_done(app)
            assert app.session is not None
            session_id = app.session.id
        app.close_store()
        return session_id

    only = await bang(None)
    mock_llm.enqueue({"text": "clean"})
    then = await bang("is it clean?")
    with SessionStore() as store:
        titles = {s.id: s.title for s in store.list_sessions()}
    assert titles[only] == "!git status"
    assert titles[then] == "is it clean?"
