"""A call the person modified before approving is stored with what actually ran (E.3).

A real Session against the mock, recorded into a real store; an inline subscriber plays
the person and answers each approval with "modify". The ``tool_calls`` row (and every
snapshot views see) carries the arguments that ran. The history keeps the model's own
functionCall — it is what the model said, and a thought signature vouches for it — while
the functionResponse tells the model what ran instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gemtui.bus import Event, ToolCallState, ToolCallStateChanged
from gemtui.bus.events import ApprovalDecision, Decision
from gemtui.store import SessionStore
from gemtui.testing import MockLLMServer

from .conftest import SessionFactory

BEFORE = "alpha\nbeta\ngamma\n"
PERSONS = "alpha\nthe person's line\ngamma\n"

CASES: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    # tool args from the model, the person's edit, what the stored row must say ran
    "write_file": (
        {"file_path": "notes.txt", "content": "the model's text\n"},
        PERSONS,
        {"file_path": "notes.txt", "content": PERSONS},
    ),
    "replace": (
        {
            "file_path": "notes.txt",
            "instruction": "change beta",
            "old_string": "beta",
            "new_string": "BETA",
        },
        PERSONS,
        {
            "file_path": "notes.txt",
            "instruction": "change beta",
            "old_string": BEFORE,
            "new_string": PERSONS,
        },
    ),
    "run_shell_command": (
        {"command": "echo model > notes.txt"},
        "echo person > notes.txt",
        {"command": "echo person > notes.txt"},
    ),
}


@pytest.mark.parametrize("tool", list(CASES))
async def test_modified_call_is_stored_with_the_arguments_that_ran(
    tool: str,
    make_session: SessionFactory,
    mock_llm: MockLLMServer,
    workspace: Path,
    tmp_path: Path,
) -> None:
    model_args, edited, ran = CASES[tool]
    (workspace / "notes.txt").write_text(BEFORE)
    mock_llm.enqueue(
        {"function_calls": [{"name": tool, "args": model_args, "id": "m1"}]},
        {"text": "Done."},
    )
    session = make_session(interactive=True)
    store = SessionStore(tmp_path / "sessions.db")
    recorder = store.record(session.bus)

    def person(event: Event) -> None:
        if not isinstance(event, ToolCallStateChanged):
            return
        call = event.call
        if call.state is ToolCallState.AWAITING_APPROVAL and call.correlation_id:
            session.bus.decide(
                call.correlation_id, Decision(ApprovalDecision.MODIFY, modified=edited)
            )

    session.bus.subscribe(person)
    session.start()
    done = await session.send("edit the notes")
    recorder.close()
    assert done.text == "Done."

    expected_file = PERSONS if tool != "run_shell_command" else "person\n"
    assert (workspace / "notes.txt").read_text() == expected_file
    (row,) = store.tool_calls(session.id)
    assert row["args"] == ran
    assert (row["state"], row["decision"]) == ("success", "modify")

    history = store.load_history(session.id)
    call = history[1].parts[0].function_call
    assert call is not None
    assert call.args == model_args
    answer = history[2].parts[0].function_response
    assert answer is not None
    assert answer.id == "m1"
    output = str(answer.response["output"])
    if tool == "run_shell_command":
        assert "Command: echo person > notes.txt" in output
    else:
        assert "The user modified the proposed content" in output
        assert PERSONS in output
    store.close()
