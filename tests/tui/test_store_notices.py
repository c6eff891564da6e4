"""The TUI tells the person, and keeps telling them, that a session is not being saved.

The store cannot be opened at start (a real SQLITE_CANTOPEN), or the disk fills during the
session (SQLite's own SQLITE_FULL): either way the conversation goes on, what was typed
reaches the model, the notice stays in the transcript and the database is left as it was.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished, ErrorOccurred
from gemtui.config.settings import Settings
from gemtui.store.recorder import NOT_SAVED
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from tests.integration.store_faults import aside, digest, healthy_store, page_capped, saved_rows
from tests.tui.helpers import Messages, engine_started, turns_done
from tests.tui.test_transcript import screen_text, settle


def _settings_for(url: str) -> Settings:
    return Settings.model_validate(
        {
            "general": {"provider": "mock"},
            "providers": {
                "mock": {"kind": "gemini", "base_url": url, "models": ["gemini-2.5-pro"]}
            },
            "network": {"max_attempts": 1, "stream_retry_delays": []},
        }
    )


async def _converse(app: GemtuiApp, prompt: str) -> tuple[str, list[str]]:
    """Type ``prompt``, wait for the answer; the transcript's text and the notices shown."""
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*prompt, "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await settle(pilot, app.main.transcript)  # a long answer is drawn over a few frames
        text = screen_text(app.main.transcript)
        notices = [
            m.event.message
            for m in seen.seen
            if isinstance(getattr(m, "event", None), ErrorOccurred)
        ]
    app.close_store()
    return text, notices


async def test_unopenable_store_shows_a_lasting_notice_and_the_prompt_is_answered(
    mock_llm: MockLLMServer,
    workspace: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    db = isolated_home / "data" / "sessions.db"
    healthy_store(db)
    before = digest(db)
    (db.parent / "sessions.db-wal").mkdir()  # SQLite answers SQLITE_CANTOPEN
    mock_llm.enqueue({"text": "Answered anyway."})
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    text, notices = await _converse(app, "hello there")
    assert len(notices) == 1
    assert notices[0].startswith(NOT_SAVED)
    assert "SQLITE_CANTOPEN" in notices[0]
    assert NOT_SAVED in text
    assert "Answered anyway." in text
    assert mock_llm.requests[-1].json["contents"][-1]["parts"][0]["text"] == "hello there"
    assert digest(db) == before
    assert aside(db.parent) == []


async def test_disk_filling_during_the_session_is_announced_once_in_the_transcript(
    mock_llm: MockLLMServer,
    workspace: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    db = isolated_home / "data" / "sessions.db"
    healthy_store(db)
    old = saved_rows(db)
    monkeypatch.setattr(sqlite3, "connect", page_capped(sqlite3.connect, extra_pages=4))
    long_answer = " ".join(f"word{i}" for i in range(6000))
    mock_llm.enqueue({"text": long_answer, "chunks": 20})
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    text, notices = await _converse(app, "tell me everything")
    monkeypatch.undo()
    assert len(notices) == 1
    assert notices[0].startswith(NOT_SAVED + " any more")
    assert "disk is full" in notices[0]
    assert "SQLITE_FULL" in notices[0]
    assert NOT_SAVED in text
    assert "word5999" in text
    assert saved_rows(db) == old
    assert aside(db.parent) == []


async def test_a_damaged_store_moved_aside_is_said_in_the_transcript(
    mock_llm: MockLLMServer,
    workspace: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Real damage still moves the file aside; the person hears where it went."""
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    db = isolated_home / "data" / "sessions.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database at all" * 50)
    mock_llm.enqueue({"text": "Answered."})
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    text, notices = await _converse(app, "hi")
    (moved,) = aside(db.parent)
    assert len(notices) == 1
    assert moved in notices[0]
    assert "could not be read" in notices[0]
    assert "moved to" in text
    assert (db.parent / moved).read_bytes() == b"not a database at all" * 50
