"""Loading a saved history answers every call that was left without its response."""

from __future__ import annotations

from pathlib import Path

from gemtui.store import SessionStore, open_session_for_resume
from gemtui.store.resume import INTERRUPTED_MESSAGE, answer_interrupted_calls
from gemtui.wire import Content, FunctionCall, FunctionResponse, Part
from tests.integration.conftest import history_is_valid


def _calls(*calls: tuple[str | None, str]) -> Content:
    return Content(
        role="model",
        parts=[Part(function_call=FunctionCall(id=i, name=n, args={})) for i, n in calls],
    )


def _answers(*answers: tuple[str, str]) -> Content:
    return Content(
        role="user",
        parts=[
            Part(function_response=FunctionResponse(id=i, name=n, response={"output": "ok"}))
            for i, n in answers
        ],
    )


def test_a_whole_history_is_returned_as_it_is() -> None:
    history = [Content.user("hi"), _calls(("a", "read_file")), _answers(("a", "read_file"))]
    assert answer_interrupted_calls(history) is history


def test_parallel_calls_partly_answered_and_a_trailing_call_all_get_answers() -> None:
    history = [
        Content.user("go"),
        _calls(("a", "read_file"), ("b", "glob")),
        _answers(("a", "read_file")),
        Content.model("next"),
        Content.user("more"),
        _calls(("c", "run_shell_command")),
    ]
    fixed = answer_interrupted_calls(history)
    assert history_is_valid(fixed)
    assert [p.function_response.id for p in fixed[2].parts if p.function_response] == ["a", "b"]
    last = fixed[-1].parts[0].function_response
    assert last is not None
    assert (last.id, last.name) == ("c", "run_shell_command")
    assert last.response == {"error": INTERRUPTED_MESSAGE}
    assert len(fixed) == len(history) + 1


def test_a_call_saved_without_an_id_takes_its_answers_id() -> None:
    history = [Content.user("go"), _calls((None, "glob")), _answers(("glob-1", "glob"))]
    fixed = answer_interrupted_calls(history)
    assert history_is_valid(fixed)
    assert len(fixed) == 3
    call = fixed[1].parts[0].function_call
    assert call is not None
    assert call.id == "glob-1"
    assert all(p.function_response.response == {"output": "ok"} for p in fixed[2].parts)  # type: ignore[union-attr]


def test_resume_repairs_and_the_next_write_saves_the_answer(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    sid = store.create_session(title="t", workspace="/ws")
    store.add_message(sid, "user", Content.user("run it"))
    store.add_message(sid, "model", _calls(("k", "run_shell_command")))
    _, history, _ = open_session_for_resume(store, sid)
    assert history_is_valid(history)
    assert len(history) == 3
    assert len(store.load_history(sid)) == 2  # loading never writes
