"""The session browser: filter, full-text search with highlights, preview, open, delete."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.geometry import Region
from textual.widgets import DataTable, Input, Static

from gemtui.store import SessionStore
from gemtui.store.subagent_log import add_subagent_message
from gemtui.tui.screens.sessions import ConfirmScreen, SessionsScreen, fit_columns
from gemtui.tui.widgets.conversation_preview import ConversationPreview
from gemtui.wire import Content
from tests.tui.helpers import tables_measured

NOW = 1_800_000_000.0
WS = "/home/dev/parser"


def _seed(store: SessionStore) -> dict[str, str]:
    ids: dict[str, str] = {}
    data = [
        ("Fix flaky CI on macOS", WS, "The test times out waiting for the socket", 7200),
        ("Parser streams JSON lines", WS, "Use an incremental decoder for the stream", 3600),
        ("Add dark theme", "/home/dev/site", "Switch the palette tokens to the dark set", 90000),
    ]
    for i, (title, ws, answer, age) in enumerate(data):
        sid = f"{i:02d}aa{i}bbccddeeff00112233445566"
        store.create_session(
            sid,
            title=title,
            workspace=ws,
            provider="gemini",
            model="gemini-2.5-pro",
            created=NOW - age,
        )
        store.add_message(sid, "user", Content.user(title))
        store.add_message(sid, "model", Content.model(answer))
        store.add_usage(
            sid, model="gemini-2.5-pro", input=1200 * (i + 1), output=300, total=1500 * (i + 1)
        )
        store.set_updated(sid, NOW - age)
        ids[title] = sid
    return ids


class BrowserApp(App[None]):
    def __init__(self, store: SessionStore, workspace: str | None = None, **kw: Any) -> None:
        super().__init__()
        self.store = store
        self.workspace = workspace
        self.kw = kw
        self.result: list[str | None] = []

    def on_mount(self) -> None:
        screen = SessionsScreen(self.store, workspace=self.workspace, now=lambda: NOW, **self.kw)
        self.push_screen(screen, self.result.append)


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    s = SessionStore(tmp_path / "sessions.db")
    _seed(s)
    return s


def _titles(app: App[Any]) -> list[str]:
    table = app.screen.query_one("#sessions-table", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def test_lists_newest_first_and_toggles_workspace(store: SessionStore) -> None:
    app = BrowserApp(store, workspace=WS)
    async with app.run_test(size=(120, 30)) as pilot:
        assert _titles(app) == ["Parser streams JSON lines", "Fix flaky CI on macOS"]
        await pilot.press("ctrl+w")
        assert _titles(app)[-1] == "Add dark theme"
        await pilot.press("ctrl+s")  # by size: all have 2 messages, newest first among equals
        await pilot.press("ctrl+s")  # by name
        assert _titles(app)[0] == "Add dark theme"


async def test_typing_filters_the_list(store: SessionStore) -> None:
    app = BrowserApp(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"flaky")
        assert _titles(app) == ["Fix flaky CI on macOS"]
        await pilot.press("escape")  # clears the filter first
        assert len(_titles(app)) == 3


async def test_full_text_search_highlights_hits_in_the_preview(store: SessionStore) -> None:
    app = BrowserApp(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+f", *"decoder")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _titles(app) == ["Parser streams JSON lines · 1 hit"]
        preview = app.screen.query_one("#sessions-preview", Static)
        content = preview.visual
        text = str(content)
        assert "Matches" in text
        assert "incremental decoder" in text
        styled = [text[s.start : s.end] for s in content.spans if "accent" in str(s.style)]  # type: ignore[attr-defined]
        assert styled == ["decoder"]


async def test_search_finds_a_word_only_a_subagent_wrote_and_names_the_agent(
    store: SessionStore,
) -> None:
    sid = _seed_ids(store)["Add dark theme"]
    add_subagent_message(store, sid, "p1", "scout", 0, Content.user("find the palette"))
    add_subagent_message(store, sid, "p1", "scout", 1, Content.model("The tokens are in ochreword"))
    app = BrowserApp(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+f", *"ochreword")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _titles(app) == ["Add dark theme · 1 hit"]
        text = str(app.screen.query_one("#sessions-preview", Static).visual)
        assert "model (scout agent): The tokens are in ochreword" in text


async def test_preview_follows_the_cursor_and_enter_opens(store: SessionStore) -> None:
    ids = _seed_ids(store)
    app = BrowserApp(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("down")
        preview = str(app.screen.query_one("#sessions-preview", Static).visual)
        assert "Fix flaky CI on macOS" in preview
        conversation = app.screen.query_one(ConversationPreview)
        assert conversation.history[1].parts[0].text is not None
        assert "socket" in conversation.history[1].parts[0].text
        await pilot.press("enter")
        await pilot.pause()
    assert app.result == [ids["Fix flaky CI on macOS"]]


async def test_delete_asks_first(store: SessionStore) -> None:
    app = BrowserApp(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert len(_titles(app)) == 3
        await pilot.press("ctrl+d")
        await pilot.press("y")
        await pilot.pause()
        assert _titles(app) == ["Fix flaky CI on macOS", "Add dark theme"]
    assert store.count_sessions() == 2


async def test_rename_fork_and_export(store: SessionStore, tmp_path: Path) -> None:
    app = BrowserApp(store, export_dir=tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+r")
        inp = app.screen.query_one("#rename-input", Input)
        inp.value = "Streaming parser"
        await pilot.press("enter")
        await pilot.pause()
        assert _titles(app)[0] == "Streaming parser"
        await pilot.press("ctrl+k")
        assert "⎇ Streaming parser (fork)" in _titles(app)
        await pilot.press("ctrl+e", "ctrl+x")
    assert len(list(tmp_path.glob("gemtui-session-*.md"))) == 1
    assert len(list(tmp_path.glob("gemtui-session-*.json"))) == 1


def _seed_ids(store: SessionStore) -> dict[str, str]:
    return {s.title: s.id for s in store.list_sessions()}


class TestSessionsSnapshots:
    def test_browser_with_preview(self, snap_compare: Any, store: SessionStore) -> None:
        """The list (this folder, newest first, turns/tokens/cost) and the first session's preview."""
        assert snap_compare(
            BrowserApp(store, workspace=WS), terminal_size=(130, 24), run_before=tables_measured
        )

    def test_search_hit_highlighted(self, snap_compare: Any, store: SessionStore) -> None:
        """Full-text search for "socket": one session, the word highlighted in the preview."""

        async def run_before(pilot: Any) -> None:
            await pilot.press("ctrl+f", *"socket")
            await pilot.app.workers.wait_for_complete()
            await tables_measured(pilot)

        assert snap_compare(BrowserApp(store), terminal_size=(130, 24), run_before=run_before)


@pytest.mark.parametrize("width", [40, 53, 66, 80, 86, 106])
def test_columns_fit_whole_at_any_width(width: int) -> None:
    """No header is ever cut short (the issue saw "Tokens" shown as "To"): the columns
    chosen, with their padding and the scrollbar, fit the table's width."""
    from gemtui.tui.screens.sessions import _COLUMNS

    keys, title = fit_columns(width)
    used = 1 + title + 2 + sum(_COLUMNS[k][1] + 2 for k in keys if k != "title")
    assert keys[0] == "title"
    assert {"when", "tokens", "cost"} <= set(keys) or width < 60
    assert used <= width or width < 60


def _seed_rich(store: SessionStore) -> str:
    from gemtui.wire import FunctionCall, FunctionResponse, Part

    sid = "ff" * 16
    store.create_session(
        sid,
        title="Write the docs",
        workspace=WS,
        provider="gemini",
        model="gemini-2.5-pro",
        created=NOW - 60,
    )
    store.add_message(sid, "user", Content.user("Write the docs"))
    call = FunctionCall(id="c1", name="read_file", args={"file_path": "README.md", "limit": 40})
    store.add_message(sid, "model", Content(role="model", parts=[Part(function_call=call)]))
    response = FunctionResponse(id="c1", name="read_file", response={"output": "# gemtui"})
    store.add_message(sid, "user", Content(role="user", parts=[Part(function_response=response)]))
    store.add_message(
        sid,
        "model",
        Content.model("## Section 1\n\nSome **bold1** text and `code`.\n\n- one\n- two"),
    )
    store.set_updated(sid, NOW - 60)
    return sid


async def test_the_preview_reads_like_the_transcript(store: SessionStore) -> None:
    _seed_rich(store)
    app = BrowserApp(store, workspace=WS)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        conversation = app.screen.query_one(ConversationPreview)
        lines = conversation.render_lines(Region(0, 0, conversation.size.width, 20))
        text = "\n".join(line.text for line in lines)
        assert "Section 1" in text
        assert "##" not in text
        assert "**" not in text
        assert "✓ read_file  README.md  +1 arg" in text
        assert '{"' not in text  # no raw JSON of arguments


class TestSessionsPreviewSnapshot:
    def test_preview_renders_markdown_and_tool_cards(
        self, snap_compare: Any, store: SessionStore
    ) -> None:
        """At 100 columns: the list keeps whole headers (Title, When, Tokens, Cost…), and
        the preview shows "▌ Write the docs", a one-line "✓ read_file  README.md  +1 arg"
        card, then "Section 1" as a bold heading, "bold1" in bold, `code` tinted and a
        bullet list — no raw ##, ** or JSON."""
        _seed_rich(store)
        assert snap_compare(
            BrowserApp(store, workspace=WS), terminal_size=(100, 24), run_before=tables_measured
        )
