"""The v4 store: subagents' histories in a table of their own, and older stores opening."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from gemtui.store import SCHEMA_VERSION, SessionStore
from gemtui.store.schema import MIGRATIONS
from gemtui.store.subagent_log import add_subagent_message
from gemtui.wire import Content


def _v3_store(path: Path) -> None:
    """A store as gemtui wrote it before subagents' histories were kept."""
    conn = sqlite3.connect(path)
    for step in MIGRATIONS[:3]:
        conn.executescript(step)
    conn.execute("PRAGMA user_version = 3")
    conn.execute(
        "INSERT INTO sessions (id, title, workspace, provider, model, created, updated,"
        " message_count, turns, tokens_total) VALUES"
        " ('old3', 'Before v4', '/ws', 'gemini', 'm', 1.0, 2.0, 1, 1, 12)"
    )
    body = json.dumps(Content.user("the pelicanword question").to_wire())
    conn.execute(
        "INSERT INTO messages (session_id, idx, epoch, role, content, text, created)"
        " VALUES ('old3', 0, 0, 'user', ?, 'the pelicanword question', 1.0)",
        (body,),
    )
    conn.execute(
        "INSERT INTO usage (session_id, prompt_id, model, input, output, total, created)"
        " VALUES ('old3', 'old3#1', 'm', 10, 2, 12, 1.5)"
    )
    conn.commit()
    conn.close()


def test_a_v3_store_opens_keeps_everything_and_takes_subagent_histories(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    _v3_store(path)
    with SessionStore(path) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 4
        info = store.get("old3")
        assert info is not None
        assert (info.title, info.messages, info.tokens) == ("Before v4", 1, 12)
        assert store.load_history("old3") == [Content.user("the pelicanword question")]
        assert [m.session.id for m in store.search("pelicanword")] == ["old3"]
        (usage,) = store.usage("old3")
        assert (usage["total"], usage["parent_call"]) == (12, None)
        assert store.subagent_transcripts("old3") == {}
        # the migrated store records a delegation like a new one
        add_subagent_message(store, "old3", "p9", "scout", 0, Content.user("look around"))
        add_subagent_message(store, "old3", "p9", "scout", 1, Content.model("a wombatword"))
        store.add_usage("old3", prompt_id="old3#2", total=7, parent_call="p9")
        story = store.subagent_transcripts("old3")["p9"]
        assert (story.agent, story.turns, story.tokens) == ("scout", 1, 7)
        assert [c.role for c in story.contents] == ["user", "model"]
        assert store.load_history("old3") == [Content.user("the pelicanword question")]
        (hit,) = store.search("wombatword")[0].hits
        assert hit.role == "model (scout agent)"


def test_a_subagents_own_compression_never_removes_what_was_stored(tmp_path: Path) -> None:
    """Entries are appended in the order they came; an index seen again (the subagent's
    history replaced by a summary, then growing again) adds, never overwrites."""
    with SessionStore(tmp_path / "sessions.db") as store:
        sid = store.create_session(title="t")
        add_subagent_message(store, sid, "p1", "generalist", 0, Content.user("task"))
        add_subagent_message(store, sid, "p1", "generalist", 1, Content.model("first"))
        add_subagent_message(store, sid, "p1", "generalist", 1, Content.model("after summary"))
        add_subagent_message(store, sid, "p1/c2", "scout", 0, Content.user("nested task"))
        stories = store.subagent_transcripts(sid)
    assert [c.parts[0].text for c in stories["p1"].contents] == ["task", "first", "after summary"]
    assert stories["p1"].turns == 2  # no usage recorded: its answers count
    assert stories["p1/c2"].agent == "scout"


def test_exports_carry_each_delegations_story_apart_from_the_history(tmp_path: Path) -> None:
    from gemtui.wire import FunctionCall, FunctionResponse, Part

    def call(name: str, call_id: str, task: str) -> Content:
        fc = FunctionCall(id=call_id, name=name, args={"task": task})
        return Content(role="model", parts=[Part(function_call=fc)])

    def result(name: str, call_id: str, output: str) -> Content:
        fr = FunctionResponse(id=call_id, name=name, response={"output": output})
        return Content(role="user", parts=[Part(function_response=fr)])

    with SessionStore(tmp_path / "sessions.db") as store:
        sid = store.create_session(title="delegated")
        for content in (
            Content.user("look into it"),
            call("generalist", "p1", "investigate"),
            result("generalist", "p1", "REPORT"),
            Content.model("PARENT-SAYS done"),
        ):
            store.add_message(sid, content.role or "user", content)
        story = (
            Content.user("investigate"),
            Content(
                role="model", parts=[Part(text="CHILD-SAYS hm"), *call("scout", "c2", "x").parts]
            ),
            result("scout", "c2", "NESTED-REPORT"),
        )
        for i, content in enumerate(story):
            add_subagent_message(store, sid, "p1", "generalist", i, content)
        add_subagent_message(store, sid, "p1/c2", "scout", 0, Content.user("x"))
        add_subagent_message(store, sid, "p1/c2", "scout", 1, Content.model("GRANDCHILD-SAYS"))
        markdown = store.export_markdown(sid)
        doc = json.loads(store.export_json(sid))
    order = [
        markdown.index("### Tool call: `generalist`"),
        markdown.index("> **Agent `generalist`** (1 turn)"),
        markdown.index("> ## Task\n>\n> investigate"),
        markdown.index("> ## generalist\n>\n> CHILD-SAYS hm"),
        markdown.index('> ### Tool call: `scout`\n>\n> ```json\n> {\n>   "task": "x"\n> }'),
        markdown.index("> > **Agent `scout`**"),
        markdown.index("> > ## scout\n> >\n> > GRANDCHILD-SAYS"),
        markdown.index("> ### Tool result: `scout`"),
        markdown.index("### Tool result: `generalist`"),
        markdown.index("## Model\n\nPARENT-SAYS done"),
    ]
    assert order == sorted(order)
    assert "CHILD-SAYS" not in json.dumps(doc["history"])
    assert set(doc["subagents"]) == {"p1", "p1/c2"}
    assert doc["subagents"]["p1"]["agent"] == "generalist"
    assert doc["subagents"]["p1/c2"]["history"][1] == {
        "role": "model",
        "parts": [{"text": "GRANDCHILD-SAYS"}],
    }


def test_a_fork_carries_the_stories_of_the_delegations_it_keeps(tmp_path: Path) -> None:
    from gemtui.wire import FunctionCall, Part

    def delegation(call_id: str) -> Content:
        fc = FunctionCall(id=call_id, name="generalist", args={"task": call_id})
        return Content(role="model", parts=[Part(function_call=fc)])

    with SessionStore(tmp_path / "sessions.db") as store:
        sid = store.create_session(title="t")
        store.add_message(sid, "user", Content.user("one"))
        store.add_message(sid, "model", delegation("p1"))
        store.add_message(sid, "user", Content.user("two"))
        store.add_message(sid, "model", delegation("p2"))
        for parent in ("p1", "p1/c1", "p2", "p10"):
            said = Content.model(f"{parent} kiwiword")
            add_subagent_message(store, sid, parent, "generalist", 0, said)
        early = store.fork(sid, at_message_index=2)
        whole = store.fork(sid)
        assert set(store.subagent_transcripts(early)) == {"p1", "p1/c1"}
        assert set(store.subagent_transcripts(whole)) == {"p1", "p1/c1", "p2"}
        assert set(store.subagent_transcripts(sid)) == {"p1", "p1/c1", "p2", "p10"}
        found = {m.session.id for m in store.search("kiwiword")}
    assert found == {sid, early, whole}  # the copies are searchable as the original
