"""A subagent's history is stored with the session, under the call that started it.

Through the real ``gemtui -p`` against the mock server, into the real SQLite store: what
the subagent was asked, said and got back is kept apart from the conversation's history
(a resumed conversation's model never sees it), the store's search finds a word only the
subagent wrote, its text is masked like every message, and the json stats count its
model calls in a field of their own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.store import SessionStore
from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

KEY = "AIzaSyCHILD-gemini-0123456789abcdefghijk"
CHILD_WORDS = "The quokkaword notes are in notes.txt, reading them."


def _call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"function_calls": [{"name": name, "args": args, "id": call_id}]}


def _delegation(mock: MockLLMServer) -> None:
    mock.enqueue(
        _call("generalist", {"task": "Summarise notes.txt (TASK-TEXT)."}, "p1"),
        {
            "text": CHILD_WORDS,
            **_call("read_file", {"file_path": "notes.txt"}, "c1"),
            "usage": {"prompt": 30, "output": 5},
        },
        {
            "text": f"It holds a key: {KEY}",
            **_call("complete_task", {"output": {"report": "NOTES-REPORT"}}, "c2"),
            "usage": {"prompt": 40, "output": 6},
        },
        {"text": "The agent says NOTES-REPORT.", "usage": {"prompt": 50, "output": 7}},
    )


def _only_session(home: Path) -> str:
    with SessionStore() as store:
        (info,) = store.list_sessions()
    return info.id


def _raw(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (home / "data").glob("sessions.db*"))


def test_a_subagents_history_is_stored_under_its_call_and_never_sent_to_the_parent(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (workspace / "notes.txt").write_text("NOTES-BODY\n", encoding="utf-8")
    env = gemtui_env(isolated_home, mock_llm_thread.url, key=KEY)
    _delegation(mock_llm_thread)
    proc = run_gemtui(["-p", "delegate", "--output-format", "json"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["stats"]["turns"] == 2  # the conversation's own, as before
    assert out["stats"]["subagent_turns"] == 2  # the subagent's, apart
    assert out["stats"]["agents"]["generalist"]["turns"] == 2

    sid = _only_session(isolated_home)
    with SessionStore() as store:
        history = store.load_history(sid)
        stories = store.subagent_transcripts(sid)
        info = store.get(sid)
    assert "quokkaword" not in json.dumps([c.to_wire() for c in history])
    assert list(stories) == ["p1"]
    story = stories["p1"]
    assert story.agent == "generalist"
    assert [c.role for c in story.contents] == ["user", "model", "user", "model", "user"]
    assert story.contents[0].parts[0].text == "Summarise notes.txt (TASK-TEXT)."
    said = json.dumps([c.to_wire() for c in story.contents])
    assert CHILD_WORDS in said
    assert "NOTES-BODY" in said  # its call's result
    assert "NOTES-REPORT" in said  # its report
    assert (story.turns, story.tokens) == (2, 81)
    assert info is not None
    assert info.messages == len(history)  # the child's entries are not the conversation's
    assert KEY.encode() not in _raw(isolated_home)  # its words are masked like any others
    assert "[redacted]" in said

    # resumed, the conversation's model sees its own history: the report, not the child
    mock_llm_thread.enqueue({"text": "again"})
    proc = run_gemtui(["-p", "and now?", "--resume", sid], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(mock_llm_thread.requests[-1].json["contents"])
    assert "NOTES-REPORT" in sent
    assert "quokkaword" not in sent
    assert "NOTES-BODY" not in sent
    with SessionStore() as store:
        assert list(store.subagent_transcripts(sid)) == ["p1"]  # kept on resume


def test_search_finds_a_word_only_the_subagent_wrote(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (workspace / "notes.txt").write_text("NOTES-BODY\n", encoding="utf-8")
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    _delegation(mock_llm_thread)
    proc = run_gemtui(["-p", "delegate"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    mock_llm_thread.enqueue({"text": "nothing of note"})
    proc = run_gemtui(["-p", "another session"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    with SessionStore() as store:
        sessions = {s.title: s.id for s in store.list_sessions()}
        found = store.search("quokkaword")
        scoped = store.search("quokkaword", workspace=str(workspace.resolve()))
        elsewhere = store.search("quokkaword", workspace="/nowhere")
        store.delete(sessions["delegate"])
        gone = store.search("quokkaword")
    assert [m.session.id for m in found] == [sessions["delegate"]]
    (hit,) = found[0].hits
    assert hit.role == "model (generalist agent)"
    assert "quokkaword" in hit.snippet
    assert hit.snippet[hit.spans[0][0] : hit.spans[0][1]] == "quokkaword"
    assert [m.session.id for m in scoped] == [sessions["delegate"]]
    assert elsewhere == []
    assert gone == []  # deleting a session deletes its subagents' words (and their index)
