"""The session browser tells the whole story: every key of its footer is on screen at 120
and 80 columns, a fork lists what its history cost, and a full-text hit in a tool's output
is labelled a tool result, not the person's words. A real SQLite store throughout."""

from __future__ import annotations

import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.app import App
from textual.widgets import DataTable, Static

from gemtui.store import SessionStore
from gemtui.tui.screens.sessions import SESSION_KEYS
from gemtui.tui.widgets.key_hints import KeyHints
from gemtui.wire import Content, FunctionCall, FunctionResponse, Part
from tests.tui.helpers import tables_measured
from tests.tui.test_sessions_screen import NOW, WS, BrowserApp, _seed


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    s = SessionStore(tmp_path / "sessions.db")
    _seed(s)
    return s


def _row(app: App[Any], session_id: str) -> dict[str, str]:
    """The cells of a session's row in the table, by column label."""
    table = app.screen.query_one("#sessions-table", DataTable)
    labels = [str(c.label) for c in table.columns.values()]
    return dict(zip(labels, [str(c) for c in table.get_row(session_id)], strict=True))


@pytest.mark.parametrize("size", [(120, 30), (80, 24)])
async def test_every_footer_key_is_on_screen(store: SessionStore, size: tuple[int, int]) -> None:
    app = BrowserApp(store, workspace=WS)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        footer = app.screen.query_one("#sessions-keys", KeyHints)
        assert footer.region.bottom <= size[1]
        assert footer.region.right <= size[0]
        drawn = " ".join(footer.render_line(y).text.rstrip() for y in range(footer.region.height))
        for full, short, label, few in SESSION_KEYS:  # each hint whole, in some form
            forms = {f"{k} {w}" for k in (full, short) for w in (label, few)}
            assert any(form in drawn for form in forms), (full, drawn)
        assert "export" in drawn
        assert "Esc close" in drawn
        # the table still has room: the footer did not push the list off screen
        assert app.screen.query_one("#sessions-table", DataTable).region.height >= 5


async def test_a_fork_lists_the_tokens_and_cost_of_its_history(store: SessionStore) -> None:
    app = BrowserApp(store, workspace=WS)
    async with app.run_test(size=(130, 30)) as pilot:
        await pilot.pause()
        parent_id = store.list_sessions()[0].id  # the newest, under the cursor
        parent = _row(app, parent_id)
        assert parent["Title"] == "Parser streams JSON lines"
        assert parent["Tokens"] == "3,000"
        await pilot.press("ctrl+k")
        await pilot.pause()
        forks = [s for s in store.list_sessions() if s.parent_id == parent_id]
        assert len(forks) == 1
        fork = _row(app, forks[0].id)
        assert fork["Title"].startswith("⎇ Parser streams JSON lines")
        assert fork["Tokens"] == parent["Tokens"]
        assert fork["Cost"] == parent["Cost"]
        assert fork["Cost"] not in ("$0.00", "—")
    assert store.usage(forks[0].id) == store.usage(parent_id)


def test_a_fork_partway_carries_only_the_usage_of_what_it_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gemtui.store import store as store_module

    ticks = iter(range(1000, 2000))
    monkeypatch.setattr(store_module, "time", SimpleNamespace(time=lambda: float(next(ticks))))
    store = SessionStore(tmp_path / "s.db")
    store.create_session("s1", title="Two turns")
    store.add_message("s1", "user", Content.user("first question"))
    store.add_message("s1", "model", Content.model("first answer"))
    store.add_usage("s1", model="gemini-2.5-pro", input=100, output=10, thoughts=5, total=115)
    store.add_message("s1", "user", Content.user("second question"))
    store.add_message("s1", "model", Content.model("second answer"))
    store.add_usage("s1", model="gemini-2.5-pro", input=300, output=30, total=330)
    half = store.get(store.fork("s1", 2))  # the first turn only
    whole = store.get(store.fork("s1"))
    none = store.get(store.fork("s1", 0))
    assert half is not None
    assert whole is not None
    assert none is not None
    assert (half.tokens_input, half.tokens_output, half.tokens) == (100, 15, 115)
    assert (whole.tokens_input, whole.tokens_output, whole.tokens) == (400, 45, 445)
    assert none.tokens == 0
    parent = store.get("s1")
    assert parent is not None
    assert parent.tokens == 445  # the original keeps its own


def _seed_tool_session(store: SessionStore) -> None:
    """A session whose tool call and its result both say "zebrafish"."""
    sid = "tool0aa0bbccddeeff00112233445566"
    store.create_session(sid, title="Grep the logs", workspace=WS, created=NOW - 60)
    store.add_message(sid, "user", Content.user("find the timeout"))
    call = FunctionCall(id="c1", name="grep_search", args={"pattern": "zebrafish"})
    store.add_message(sid, "model", Content(role="model", parts=[Part(function_call=call)]))
    answer = FunctionResponse(
        id="c1", name="grep_search", response={"output": "log.txt:3: zebrafish timeout"}
    )
    store.add_message(sid, "user", Content(role="user", parts=[Part(function_response=answer)]))
    store.add_message(sid, "model", Content.model("The zebrafish step times out."))
    store.set_updated(sid, NOW - 60)


async def test_a_hit_in_a_tool_result_is_labelled_a_tool_result(store: SessionStore) -> None:
    _seed_tool_session(store)
    app = BrowserApp(store)
    async with app.run_test(size=(130, 30)) as pilot:
        await pilot.press("ctrl+f", *"zebrafish")
        await app.workers.wait_for_complete()
        await pilot.pause()
        preview = str(app.screen.query_one("#sessions-preview", Static).visual)
        assert "#2 tool result (grep_search): log.txt:3: zebrafish timeout" in preview
        assert "#1 tool call (grep_search): grep_search" in preview
        assert "#3 model: The zebrafish step" in preview
        assert "user:" not in preview


class TestSessionsBrowserSnapshots:
    def test_fork_listed_with_its_cost_at_120(
        self, snap_compare: Any, store: SessionStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """After Ctrl+K: the fork "⎇ Parser streams JSON lines (fork)" at the top, "just
        now", with 3,000 tokens and $0.01 like its parent below it; its preview says "⎇ fork
        of “Parser streams JSON lines” (01aa1bbc)"; the toast "Forked as f0f0f0f0"; the footer on one line, from "Enter open" to "^E/^X export md/json  Esc
        close"."""
        from gemtui.store import store as store_module

        # the fork's id and time are the store's own: pinned so the picture is stable
        monkeypatch.setattr(store_module, "time", SimpleNamespace(time=lambda: NOW - 30))
        fixed = uuid.UUID("f0f0f0f0" * 4)
        monkeypatch.setattr(store_module, "uuid", SimpleNamespace(uuid4=lambda: fixed))

        async def run_before(pilot: Any) -> None:
            # a blinking cursor is caught on or off by chance: held on, the picture is stable
            pilot.app.screen.query_one("#sessions-filter").cursor_blink = False
            await pilot.press("ctrl+k")
            await tables_measured(pilot)

        app = BrowserApp(store, workspace=WS)
        assert snap_compare(app, terminal_size=(120, 30), run_before=run_before)

    def test_tool_result_hit_at_80(self, snap_compare: Any, store: SessionStore) -> None:
        """Full-text search for "zebrafish" at 80x24: the preview's matches labelled
        "#3 model", "#2 tool result (grep_search)" and "#1 tool call (grep_search)"; the footer on two lines, every key
        whole, the second ending "^E/^X export md/json  Esc close"."""
        _seed_tool_session(store)

        async def run_before(pilot: Any) -> None:
            await pilot.press("ctrl+f", *"zebrafish")
            await pilot.app.workers.wait_for_complete()
            await tables_measured(pilot)

        assert snap_compare(BrowserApp(store), terminal_size=(80, 24), run_before=run_before)


async def test_a_fork_is_marked_even_where_its_title_is_cut(store: SessionStore) -> None:
    """At 80 columns the title is cut before its " (fork)": the mark comes first, and the
    preview names the source."""
    long_id = "0100aa0bbccddeeff001122334455667"
    store.create_session(
        long_id, title="Parser streams JSON lines for the whole decoder", workspace=WS
    )
    store.add_message(long_id, "user", Content.user("stream it"))
    store.set_updated(long_id, NOW - 10)
    app = BrowserApp(store, workspace=WS)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#sessions-table", DataTable).cursor_row == 0
        await pilot.press("ctrl+k")
        await pilot.pause()
        [fork] = [s for s in store.list_sessions() if s.parent_id == long_id]
        assert _row(app, fork.id)["Title"].startswith("⎇ Parser streams")
        assert not _row(app, long_id)["Title"].startswith("⎇")
        source = store.list_sessions()[1].id  # the older "Parser streams JSON lines"
        table = app.screen.query_one("#sessions-table", DataTable)
        table.move_cursor(row=table.get_row_index(fork.id))
        await pilot.pause()
        preview = str(app.screen.query_one("#sessions-preview", Static).visual)
        assert f"⎇ fork of “Parser streams JSON lines for the whole decoder” ({long_id[:8]})" in (
            preview
        )
        assert source != fork.id


async def test_a_hit_in_a_call_beside_words_is_labelled_the_tool(store: SessionStore) -> None:
    """The model said a sentence and called grep in one message: a word only the call has
    is the tool's hit, named; a word of the sentence stays the model's (the control)."""
    sid = "mixd0aa0bbccddeeff00112233445566"
    store.create_session(sid, title="Find the creature", workspace=WS, created=NOW - 60)
    store.add_message(sid, "user", Content.user("find it"))
    call = FunctionCall(id="c1", name="grep_search", args={"pattern": "axolotl"})
    said = Part(text="Let me search the aquarium logs.")
    store.add_message(sid, "model", Content(role="model", parts=[said, Part(function_call=call)]))
    store.set_updated(sid, NOW - 60)
    app = BrowserApp(store)
    async with app.run_test(size=(130, 30)) as pilot:
        await pilot.press("ctrl+f", *"axolotl")
        await app.workers.wait_for_complete()
        await pilot.pause()
        preview = str(app.screen.query_one("#sessions-preview", Static).visual)
        assert "#1 tool call (grep_search): " in preview
        assert "#1 model" not in preview
        await pilot.press(*["backspace"] * len("axolotl"), *"aquarium")
        await app.workers.wait_for_complete()
        await pilot.pause()
        preview = str(app.screen.query_one("#sessions-preview", Static).visual)
        assert "#1 model: Let me search the aquarium logs." in preview


async def test_a_longer_title_is_whole_even_when_drawn_before_the_table_idles(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual sizes a table's columns for new rows when the table next idles, and a row
    drawn before that kept the old width until something redrew it: the fork's title was
    cut to its parent's width ("⎇ Parser streams JSON lin", "just n")."""
    from gemtui.store import store as store_module

    monkeypatch.setattr(store_module, "time", SimpleNamespace(time=lambda: NOW - 30))
    app = BrowserApp(store, workspace=WS)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#sessions-table", DataTable)
        app.screen.action_fork()  # type: ignore[attr-defined]
        early = table.render_line(1).text  # drawn before the table's idle
        await tables_measured(pilot)
        assert "⎇ Parser streams JSON lines (fork)" in table.render_line(1).text, early
        assert "just now" in table.render_line(1).text


async def test_rows_held_for_after_the_first_paint_never_land_in_a_newer_list(
    tmp_path: Path,
) -> None:
    """Past the first screenful, a page's rows are added after the first paint. A second
    keystroke in the filter (or a resize) that rebuilt the list before then got the old
    rows too: the same key twice (a crash) or a table that no longer matched the list
    Enter opens from."""
    store = SessionStore(tmp_path / "many.db")
    for i in range(80):
        sid = f"{i:04d}" + "ab" * 14
        store.create_session(sid, title=f"Session {i:02d}", workspace=WS, created=NOW - 1000 - i)
        store.set_updated(sid, NOW - 1000 - i)
    app = BrowserApp(store, workspace=WS)
    async with app.run_test(size=(120, 30)) as pilot:
        await tables_measured(pilot)
        screen: Any = app.screen
        screen.reload()
        screen.reload()  # before the first reload's held rows were added
        for _ in range(100):  # the rows held for after the first paint, added
            await pilot.pause()
            if not screen._held:
                break
        await tables_measured(pilot)
        table = screen.query_one("#sessions-table", DataTable)
        keys = [str(k.value) for k in table.rows]
        assert keys == [info.id for info in screen.rows]
        assert len(keys) == 80
