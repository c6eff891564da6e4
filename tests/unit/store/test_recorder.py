"""The recorder keeps the store equal to the conversation, from bus events alone."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus import EventBus
from gemtui.bus.events import (
    AgentFinished,
    ContentDelta,
    HistoryAppended,
    HistoryReplaced,
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


class Conversation:
    """A history that publishes its changes the way the chat does."""

    def __init__(self, session_id: str = "s1") -> None:
        self.bus = EventBus(session_id)
        self.history: list[Content] = []

    def start(self, model: str = "gemini-2.5-pro") -> None:
        self.bus.emit(SessionStarted, provider="gemini", model=model, workspace="/ws")
        if self.history:
            self.bus.emit(HistoryReplaced, contents=tuple(self.history), reason="resume")

    def append(self, *contents: Content) -> None:
        for content in contents:
            self.history.append(content)
            self.bus.emit(HistoryAppended, index=len(self.history) - 1, content=content)

    def replace(self, contents: list[Content], reason: str = "compression") -> None:
        self.history = list(contents)
        self.bus.emit(HistoryReplaced, contents=tuple(contents), reason=reason)


def _start(tmp_path: Path) -> tuple[SessionStore, Conversation, SessionRecorder]:
    store = SessionStore(tmp_path / "s.db")
    chat = Conversation()
    recorder = SessionRecorder(store, chat.bus)
    chat.start()
    return store, chat, recorder


def test_prompt_is_committed_at_once_and_titles_the_session(tmp_path: Path) -> None:
    store, chat, _ = _start(tmp_path)
    chat.bus.emit(UserMessage, text="Refactor the parser\nso it streams")
    assert store.load_history("s1") == [Content.user("Refactor the parser\nso it streams")]
    assert store.get("s1").title == "Refactor the parser"  # type: ignore[union-attr]
    info = store.get("s1")
    assert info is not None
    assert (info.workspace, info.provider, info.model) == ("/ws", "gemini", "gemini-2.5-pro")


def test_a_new_session_without_a_prompt_is_not_saved(tmp_path: Path) -> None:
    store, _, recorder = _start(tmp_path)
    recorder.close()
    assert store.get("s1") is None


def test_tool_loop_is_stored_exactly_as_the_chat_holds_it(tmp_path: Path) -> None:
    store, chat, recorder = _start(tmp_path)
    bus = chat.bus
    bus.emit(UserMessage, text="list files")
    chat.append(Content.user("list files"))
    bus.emit(ContentDelta, text="partial")
    assert len(store.load_history("s1")) == 1  # nothing mid-stream
    call = FunctionCall(id="c1", name="list_directory", args={"path": "."})
    chat.append(Content(role="model", parts=[Part(function_call=call)]))
    bus.emit(TurnFinished, finish_reason="STOP", usage=Usage(10, 2, 0, 0, 12), model="m")
    assert len(store.load_history("s1")) == 2
    snap = ToolCallSnapshot(
        "c1", "list_directory", {"path": "."}, ToolCallState.SUCCESS, output="a.py"
    )
    bus.emit(ToolCallStateChanged, call=snap)
    resp = FunctionResponse(id="c1", name="list_directory", response={"output": "a.py"})
    chat.append(Content(role="user", parts=[Part(function_response=resp)]))
    assert len(store.load_history("s1")) == 3, "a tool result is saved before the next answer"
    chat.append(Content.model("There is a.py."))
    bus.emit(TurnFinished, finish_reason="STOP", usage=Usage(20, 4, 0, 0, 24), model="m")
    bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="There is a.py.")
    assert store.load_history("s1") == chat.history
    assert store.tool_calls("s1")[0]["output"] == "a.py"
    info = store.get("s1")
    assert info is not None
    assert info.tokens == 36
    assert info.turns == 1
    assert recorder.failures == 0


def test_compression_rewrites_the_history_keeping_the_pending_prompt(tmp_path: Path) -> None:
    store, chat, _ = _start(tmp_path)
    bus = chat.bus
    bus.emit(UserMessage, text="old")
    chat.append(Content.user("old"), Content.model("old answer"))
    bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="")
    bus.emit(UserMessage, text="new question")
    chat.replace([Content.user("<summary/>"), Content.model("ok")])
    assert store.load_history("s1")[-1] == Content.user("new question"), "the prompt is kept"
    chat.append(Content.user("new question"), Content.model("new answer"))
    bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="new answer")
    assert store.load_history("s1") == chat.history


def test_a_prompt_cancelled_before_the_model_saw_it_is_dropped(tmp_path: Path) -> None:
    store, chat, _ = _start(tmp_path)
    chat.bus.emit(UserMessage, text="never sent")
    chat.bus.emit(AgentFinished, reason=TerminateReason.ABORTED, text="")
    assert store.load_history("s1") == []


def test_answers_to_interrupted_calls_before_the_prompt_go_first(tmp_path: Path) -> None:
    store, chat, _ = _start(tmp_path)
    chat.bus.emit(UserMessage, text="go on")
    resp = FunctionResponse(id="c1", name="x", response={"error": "Cancelled."})
    chat.append(Content(role="user", parts=[Part(function_response=resp)]))
    chat.append(Content.user("go on"))
    assert store.load_history("s1") == chat.history


def test_resumed_session_appends_after_the_loaded_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    store.create_session("s1", workspace="/ws")
    store.add_message("s1", "user", Content.user("first"))
    store.add_message("s1", "model", Content.model("one"))
    chat = Conversation()
    chat.history = store.load_history("s1")
    SessionRecorder(store, chat.bus)
    chat.start(model="m")
    epoch = _epoch(store)
    chat.bus.emit(UserMessage, text="second")
    chat.append(Content.user("second"), Content.model("two"))
    chat.bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="two")
    assert store.load_history("s1") == chat.history
    assert len(store.load_history("s1")) == 4
    assert _epoch(store) == epoch, "an unchanged resumed history is not rewritten"


def _epoch(store: SessionStore) -> int:
    import sqlite3

    with sqlite3.connect(store.path) as db:
        (epoch,) = db.execute("SELECT epoch FROM sessions WHERE id = 's1'").fetchone()
    return int(epoch)


def test_a_long_conversation_is_recorded_whole(tmp_path: Path) -> None:
    """The engine calls the recorder inline; its cost is a bench figure, its result is this."""
    store, chat, recorder = _start(tmp_path)
    for i in range(100):
        chat.bus.emit(UserMessage, text=f"prompt {i}")
        chat.append(Content.user(f"prompt {i}"), Content.model(f"answer {i}"))
        for _ in range(50):
            chat.bus.emit(ContentDelta, text="x")
        chat.bus.emit(TurnFinished, finish_reason="STOP", usage=Usage(1, 1, 0, 0, 2), model="m")
        chat.bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="")
    assert store.get("s1").messages == 200  # type: ignore[union-attr]
    assert store.load_history("s1") == chat.history
    assert recorder.failures == 0
