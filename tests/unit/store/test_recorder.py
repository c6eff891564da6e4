"""The recorder keeps the store equal to the chat's history, event by event."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gemtui.bus import EventBus
from gemtui.bus.events import (
    AgentFinished,
    ContentDelta,
    HistoryCompressed,
    SessionStarted,
    TerminateReason,
    ToolCallSnapshot,
    ToolCallState,
    ToolCallStateChanged,
    TurnFinished,
    Usage,
    UserMessage,
)
from gemtui.store import SessionRecorder, SessionStore
from gemtui.wire import Content, FunctionCall, FunctionResponse, Part


@dataclass
class _Chat:
    model: str = "gemini-2.5-pro"
    history: list[Content] = field(default_factory=list)


@dataclass
class _Provider:
    name: str = "gemini"


@dataclass
class _Workspace:
    root: Path = Path("/ws")


@dataclass
class FakeSession:
    id: str = "s1"
    bus: Any = None
    chat: _Chat = field(default_factory=_Chat)
    provider: _Provider = field(default_factory=_Provider)
    workspace: _Workspace = field(default_factory=_Workspace)

    def __post_init__(self) -> None:
        self.bus = EventBus(self.id)


def _start(tmp_path: Path) -> tuple[SessionStore, FakeSession, SessionRecorder]:
    store = SessionStore(tmp_path / "s.db")
    session = FakeSession()
    recorder = SessionRecorder(store, session)
    session.bus.emit(SessionStarted, provider="gemini", model="gemini-2.5-pro", workspace="/ws")
    return store, session, recorder


def test_prompt_is_committed_at_once_and_titles_the_session(tmp_path: Path) -> None:
    store, session, _ = _start(tmp_path)
    session.bus.emit(UserMessage, text="Refactor the parser\nso it streams")
    assert store.load_history("s1") == [Content.user("Refactor the parser\nso it streams")]
    assert store.get("s1").title == "Refactor the parser"  # type: ignore[union-attr]


def test_tool_loop_is_stored_exactly_as_the_chat_holds_it(tmp_path: Path) -> None:
    store, session, recorder = _start(tmp_path)
    bus, history = session.bus, session.chat.history
    bus.emit(UserMessage, text="list files")
    history.append(Content.user("list files"))
    bus.emit(ContentDelta, text="partial")
    assert len(store.load_history("s1")) == 1  # nothing mid-stream
    call = FunctionCall(id="c1", name="list_directory", args={"path": "."})
    history.append(Content(role="model", parts=[Part(function_call=call)]))
    bus.emit(TurnFinished, finish_reason="STOP", usage=Usage(10, 2, 0, 0, 12), model="m")
    assert len(store.load_history("s1")) == 2
    snap = ToolCallSnapshot(
        "c1", "list_directory", {"path": "."}, ToolCallState.SUCCESS, output="a.py"
    )
    bus.emit(ToolCallStateChanged, call=snap)
    resp = FunctionResponse(id="c1", name="list_directory", response={"output": "a.py"})
    history.append(Content(role="user", parts=[Part(function_response=resp)]))
    history.append(Content.model("There is a.py."))
    bus.emit(TurnFinished, finish_reason="STOP", usage=Usage(20, 4, 0, 0, 24), model="m")
    bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="There is a.py.")
    assert store.load_history("s1") == history
    assert store.tool_calls("s1")[0]["output"] == "a.py"
    info = store.get("s1")
    assert info is not None
    assert info.tokens == 36
    assert info.turns == 1
    assert recorder.failures == 0


def test_compression_rewrites_the_history_keeping_the_pending_prompt(tmp_path: Path) -> None:
    store, session, _ = _start(tmp_path)
    bus = session.bus
    session.chat.history[:] = [Content.user("old"), Content.model("old answer")]
    bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="")
    bus.emit(UserMessage, text="new question")
    session.chat.history[:] = [Content.user("<summary/>"), Content.model("ok")]
    bus.emit(HistoryCompressed, tokens_before=100, tokens_after=10)
    session.chat.history.append(Content.user("new question"))
    session.chat.history.append(Content.model("new answer"))
    bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="new answer")
    assert store.load_history("s1") == session.chat.history


def test_a_prompt_cancelled_before_the_model_saw_it_is_dropped(tmp_path: Path) -> None:
    store, session, _ = _start(tmp_path)
    session.bus.emit(UserMessage, text="never sent")
    session.bus.emit(AgentFinished, reason=TerminateReason.ABORTED, text="")
    assert store.load_history("s1") == []


def test_resumed_session_appends_after_the_loaded_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    store.create_session("s1", workspace="/ws")
    store.add_message("s1", "user", Content.user("first"))
    store.add_message("s1", "model", Content.model("one"))
    session = FakeSession()
    session.chat.history = store.load_history("s1")
    SessionRecorder(store, session)
    session.bus.emit(SessionStarted, provider="gemini", model="m", workspace="/ws")
    session.bus.emit(UserMessage, text="second")
    session.chat.history += [Content.user("second"), Content.model("two")]
    session.bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="two")
    assert store.load_history("s1") == session.chat.history
    assert len(store.load_history("s1")) == 4


def test_recording_costs_well_under_a_millisecond_per_event(tmp_path: Path) -> None:
    """The engine calls the recorder inline: it must stay cheap (measured, loosely bounded)."""
    store, session, recorder = _start(tmp_path)
    start = time.perf_counter()
    for i in range(100):
        session.bus.emit(UserMessage, text=f"prompt {i}")
        session.chat.history += [Content.user(f"prompt {i}"), Content.model(f"answer {i}")]
        for _ in range(50):
            session.bus.emit(ContentDelta, text="x")
        session.bus.emit(TurnFinished, finish_reason="STOP", usage=Usage(1, 1, 0, 0, 2), model="m")
        session.bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="")
    elapsed = time.perf_counter() - start
    assert store.get("s1").messages == 200  # type: ignore[union-attr]
    per_prompt_ms = elapsed * 1000 / 100
    assert per_prompt_ms < 50, per_prompt_ms
    assert recorder.write_seconds <= elapsed
