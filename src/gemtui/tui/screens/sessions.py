"""The session browser: find yesterday's work by title or by anything said, then reopen it.

It takes a ``SessionStore`` (never the agent); opening dismisses the screen with the
session id and the app resumes it. Rows come in pages of 200 as the cursor nears the
end, so a store of ten thousand sessions opens as fast as one of ten.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.cells import cell_len
from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Input, Static

from gemtui.agent.prices import PriceBook, cost_of, price_for
from gemtui.bus.events import Usage
from gemtui.store import SORTS, SessionInfo, SessionMatch, SessionStore
from gemtui.store.records import FORK_MARK, iso
from gemtui.tui.screens.dialogs import ConfirmScreen
from gemtui.tui.widgets.conversation_preview import ConversationPreview
from gemtui.tui.widgets.key_hints import KeyHint, KeyHints

__all__ = ["ConfirmScreen", "RenameScreen", "SessionsScreen", "relative_time"]

PAGE = 200
"""Rows fetched from the store at a time."""
FIRST_PAINT = 50
"""Rows put in the table before the first paint; the rest of the page follows at once."""
HIT_STYLE = "bold $text-accent on $accent-muted"
PREVIEW_MESSAGES = 12
"""Messages drawn in the preview (the start of the conversation)."""


_COLUMNS = {  # key: (label, width); the title takes what is left, up to 34
    "title": ("Title", 0),
    "workspace": ("Workspace", 16),
    "model": ("Model", 22),
    "when": ("When", 9),
    "turns": ("Turns", 5),
    "tokens": ("Tokens", 9),
    "cost": ("Cost", 6),
}
_ESSENTIAL = ("when", "tokens", "cost")
_OPTIONAL = ("turns", "model", "workspace")
"""Columns dropped first as the table narrows (the preview shows them anyway)."""
TITLE_MIN, TITLE_WANTED, TITLE_MAX = 16, 28, 34

SESSION_KEYS: list[KeyHint] = [
    ("Enter", "Enter", "open", "open"),
    ("Ctrl+F", "^F", "full-text", "search"),
    ("Ctrl+W", "^W", "folder/all", "folder"),
    ("Ctrl+S", "^S", "sort", "sort"),
    ("Ctrl+K", "^K", "fork", "fork"),
    ("Ctrl+R", "^R", "rename", "rename"),
    ("Ctrl+D", "^D", "delete", "delete"),
    ("Ctrl+E/X", "^E/^X", "export md/json", "export"),
    ("Esc", "Esc", "close", "close"),
]
"""The footer: every key shown whole at any width (it wraps rather than cut one off)."""


def fit_columns(width: int) -> tuple[list[str], int]:
    """The columns that fit ``width`` cells whole (no header cut short) and the title's
    width; a column costs its width plus two cells of padding. The title comes first,
    then when/tokens/cost, then a readable title, then turns, model and workspace."""
    room = width - 1 - (TITLE_MIN + 2)  # the scrollbar, the title at its narrowest
    kept: set[str] = set()
    title = TITLE_MIN
    for step in (*_ESSENTIAL, "grow", *_OPTIONAL):
        if step == "grow":
            grow = max(0, min(TITLE_WANTED - title, room))
            title, room = title + grow, room - grow
            continue
        cost = _COLUMNS[step][1] + 2
        if cost <= room:
            kept.add(step)
            room -= cost
    keys = [k for k in _COLUMNS if k == "title" or k in kept]
    return keys, min(TITLE_MAX, title + room)


def relative_time(ts: float, now: float) -> str:
    delta = max(0.0, now - ts)
    if delta < 60:
        return "just now"
    if delta < 3600:
        return f"{int(delta // 60)}m ago"
    if delta < 86400:
        return f"{int(delta // 3600)}h ago"
    if delta < 2 * 86400:
        return "yesterday"
    if delta < 30 * 86400:
        return f"{int(delta // 86400)}d ago"
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def _cost(info: SessionInfo, prices: PriceBook | None) -> str:
    usage = Usage(input=info.tokens_input, output=info.tokens_output)
    cost = cost_of(usage, price_for(info.model, None if prices is None else prices.models_only()))
    return "—" if cost is None else f"${cost:.2f}"


class RenameScreen(ModalScreen[str | None]):
    """A new title for a session; Enter saves, Esc keeps the old one."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Rename session", classes="dialog-title")
            yield Input(self._title, id="rename-input")
            yield Static("Enter save · Esc cancel", classes="dialog-keys")

    @on(Input.Submitted, "#rename-input")
    def _save(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SessionsScreen(Screen[str | None]):
    """Saved sessions, newest first: filter, search, preview, open, fork, rename, delete, export."""

    CSS_PATH = "sessions.tcss"

    BINDINGS = [
        Binding("enter", "open", "Open", priority=True),
        Binding("ctrl+f", "toggle_search", "Full-text", priority=True),
        Binding("ctrl+w", "toggle_workspace", "This folder/all", priority=True),
        Binding("ctrl+s", "cycle_sort", "Sort", priority=True),
        Binding("ctrl+k", "fork", "Fork", priority=True),
        Binding("ctrl+r", "rename", "Rename", priority=True),
        Binding("ctrl+d", "delete", "Delete", priority=True),
        Binding("ctrl+e", "export('md')", "Export .md", priority=True),
        Binding("ctrl+x", "export('json')", "Export .json", priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("pagedown", "move(10)", show=False, priority=True),
        Binding("pageup", "move(-10)", show=False, priority=True),
        Binding("escape", "close", "Close"),
    ]
    spoken = (
        "Saved sessions, newest first; type to filter. Up and Down choose, Enter opens, "
        "Control F full-text search, Control W this folder or all, Control S sort, "
        "Control K fork, Control R rename, Control D delete, Control E export Markdown, "
        "Control X export JSON, Escape closes."
    )
    """The screen in words, for the screen-reader mode's log."""

    def __init__(
        self,
        store: SessionStore,
        *,
        workspace: Path | str | None = None,
        now: Callable[[], float] = time.time,
        export_dir: Path | None = None,
        protected_id: str | None = None,
        prices: PriceBook | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.store = store
        self.workspace = str(workspace) if workspace else None
        self.now = now
        self.export_dir = export_dir
        self.protected_id = protected_id
        """The session open in the app: it cannot be deleted from here."""
        self.prices = prices
        """The reader's own ``[prices."MODEL"]`` (None: the built-in table only)."""
        self.only_workspace = self.workspace is not None
        self.sort = "date"
        self.search_mode = False
        self.rows: list[SessionInfo] = []
        self.matches: dict[str, SessionMatch] = {}
        self._exhausted = False
        self._columns: list[str] = []
        self._title_width = TITLE_MAX
        self._held: list[SessionInfo] = []
        """Rows of the list shown, waiting for the first paint to be added."""

    def compose(self) -> ComposeResult:
        yield Static(id="sessions-header")
        yield Input(
            placeholder="Type to filter by title · Ctrl+F searches everything said",
            id="sessions-filter",
        )
        with Horizontal(id="sessions-body"):
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="sessions-preview-scroll"):
                yield Static(id="sessions-preview")
                yield ConversationPreview(id="sessions-conversation")
        yield KeyHints(SESSION_KEYS, id="sessions-keys", wrap=True)

    def on_mount(self) -> None:
        self._set_columns()
        self.reload()
        self.query_one("#sessions-filter", Input).focus()

    def on_resize(self) -> None:
        if self._set_columns():
            table = self.query_one("#sessions-table", DataTable)
            row = table.cursor_row
            self._clear_table()
            self._append(self.rows)
            if self.rows:
                table.move_cursor(row=min(row, len(self.rows) - 1))

    def _set_columns(self) -> bool:
        """Columns for the table's width (two thirds of the screen); True if changed."""
        fit = fit_columns(self.size.width * 2 // 3)
        if fit == (self._columns, self._title_width):
            return False
        self._columns, self._title_width = fit
        table = self.query_one("#sessions-table", DataTable)
        self._clear_table(columns=True)
        for key in self._columns:
            table.add_column(_COLUMNS[key][0], key=key)
        return True

    # -- data ----------------------------------------------------------------------------
    @property
    def _scope(self) -> str | None:
        return self.workspace if self.only_workspace else None

    @property
    def _text(self) -> str:
        return self.query_one("#sessions-filter", Input).value.strip()

    def reload(self) -> None:
        """Fill the table from the first page (or from the search results)."""
        self.rows, self.matches, self._exhausted = [], {}, False
        self._clear_table()
        if self.search_mode and self._text:
            self._search(self._text)
        else:
            self._load_page()
        self._update_header()

    def _load_page(self) -> None:
        page = self.store.list_sessions(
            self._scope, sort=self.sort, limit=PAGE, offset=len(self.rows), text=self._text or None
        )
        self._exhausted = len(page) < PAGE
        self._add_rows(page)

    def _clear_table(self, *, columns: bool = False) -> None:
        """Empty the table for another list: rows held for the old one never come."""
        self._held = []
        self.query_one("#sessions-table", DataTable).clear(columns=columns)

    def _add_rows(self, page: list[SessionInfo]) -> None:
        """Add a page: a screenful now, the rest after the first paint (open stays fast)."""
        self.rows.extend(page)
        if self._held:  # rows before these still wait: these go after them, in order
            self._held.extend(page)
        else:
            first, self._held = page[:FIRST_PAINT], page[FIRST_PAINT:]
            self._append(first)
            if self._held:
                self.call_after_refresh(self._append_held)
        table = self.query_one("#sessions-table", DataTable)
        if page and table.cursor_row == 0:
            self._show_preview(self.rows[0])
        elif not self.rows:
            self.query_one("#sessions-preview", Static).update("No sessions here yet.")
            self.query_one("#sessions-conversation", ConversationPreview).show([])

    def _append_held(self) -> None:
        held, self._held = self._held, []
        self._append(held)

    def _append(self, page: list[SessionInfo]) -> None:
        table = self.query_one("#sessions-table", DataTable)
        now = self.now()
        rows = [(info.id, self._cells(info, now)) for info in page]
        # Sized here, before the rows go in: Textual measures new rows only when the
        # table next idles, and a row drawn before that keeps its old width (a new, longer
        # title cut short) until something else redraws it. An empty table starts over.
        grow = table.row_count > 0
        for key, column in table.columns.items():
            wanted = max((cell_len(cells[str(key.value)]) for _, cells in rows), default=0)
            wanted = max(wanted, cell_len(str(column.label)))
            column.width = max(wanted, column.width if grow and not column.auto_width else 0)
            column.auto_width = False
        for row_id, cells in rows:
            cells["title"] = escape(cells["title"])  # text, not markup: "[redacted]" must show
            table.add_row(*(cells[key] for key in self._columns), key=row_id)

    def _cells(self, info: SessionInfo, now: float) -> dict[str, str]:
        """A session's row, as the text each column shows."""
        title = info.title or "(untitled)"
        fork = FORK_MARK if info.parent_id else ""  # first: a cut title still shows it
        if len(fork) + len(title) > self._title_width:
            title = title[: self._title_width - len(fork) - 1] + "…"
        title = fork + title
        if info.imported:
            title += " ↧"
        if info.id in self.matches:
            n = len(self.matches[info.id].hits)
            title += f" · {n} hit" + ("s" if n > 1 else "")
        return {
            "title": title,
            "workspace": Path(info.workspace).name[:16] or info.workspace,
            "model": info.model[:22],
            "when": relative_time(info.updated, now),
            "turns": str(info.turns),
            "tokens": f"{info.tokens:,}",
            "cost": _cost(info, self.prices),
        }

    @work(exclusive=True, group="sessions-search", thread=True)
    def _search(self, text: str) -> None:
        matches = self.store.search(text, workspace=self._scope)
        self.app.call_from_thread(self._show_matches, text, matches)

    def _show_matches(self, text: str, matches: list[SessionMatch]) -> None:
        if text != self._text or not self.search_mode:
            return
        self._clear_table()
        self.rows, self._exhausted = [], True
        self.matches = {m.session.id: m for m in matches}
        self._add_rows([m.session for m in matches])
        self._update_header()

    def _update_header(self) -> None:
        scope = "this folder" if self.only_workspace else "all folders"
        mode = "full-text search" if self.search_mode else f"sorted by {self.sort}"
        self.query_one("#sessions-header", Static).update(
            Content.from_markup(
                "[b]Sessions[/b] · $scope · $mode · $n shown",
                scope=scope,
                mode=mode,
                n=str(len(self.rows)),
            )
        )

    @property
    def selected(self) -> SessionInfo | None:
        row = self.query_one("#sessions-table", DataTable).cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def _show_preview(self, info: SessionInfo) -> None:
        when = f"{iso(info.updated)} ({relative_time(info.updated, self.now())})"
        parts: list[Content] = [
            Content.from_markup("[b]$title[/b]\n", title=info.title or "(untitled)"),
            *self._fork_line(info),
            Content(f"{info.id}\n{info.workspace}\n{info.provider}/{info.model} · {when}\n"),
            Content(f"{info.messages} messages · {info.tokens:,} tokens\n"),
        ]
        match = self.matches.get(info.id)
        if match:
            parts.append(Content.from_markup("\n[b]Matches[/b]\n"))
            for hit in match.hits:
                snippet = Content(hit.snippet.replace("\n", " "))
                for start, end in hit.spans:
                    snippet = snippet.stylize(HIT_STYLE, start, end)
                parts += [Content(f"#{hit.message_index} {hit.role}: "), snippet, Content("\n")]
        self.query_one("#sessions-preview", Static).update(Content("").join(parts))
        conversation = self.query_one("#sessions-conversation", ConversationPreview)
        conversation.show(self.store.history_head(info.id, limit=PREVIEW_MESSAGES))

    def _fork_line(self, info: SessionInfo) -> list[Content]:
        """ "⎇ fork of “TITLE” (ID)" for a fork: it reads like its source otherwise."""
        if not info.parent_id:
            return []
        source = self.store.get(info.parent_id)
        if source is None:
            return [Content(f"{FORK_MARK}fork of a deleted session ({info.parent_id[:8]})\n")]
        title = source.title or "(untitled)"
        return [Content(f"{FORK_MARK}fork of “{title}” ({source.id[:8]})\n")]

    # -- events --------------------------------------------------------------------------
    @on(Input.Changed, "#sessions-filter")
    def _filter_changed(self) -> None:
        self.reload()

    @on(DataTable.RowHighlighted, "#sessions-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        row = event.cursor_row
        if 0 <= row < len(self.rows):
            self._show_preview(self.rows[row])
        if not self._exhausted and row >= len(self.rows) - 20:
            self._load_page()

    # -- actions -------------------------------------------------------------------------
    def action_move(self, step: int) -> None:
        table = self.query_one("#sessions-table", DataTable)
        if self.rows:
            table.move_cursor(row=max(0, min(len(self.rows) - 1, table.cursor_row + step)))

    def action_open(self) -> None:
        info = self.selected
        if info is not None:
            self.dismiss(info.id)

    def action_close(self) -> None:
        if self._text:
            self.query_one("#sessions-filter", Input).value = ""
            return
        self.dismiss(None)

    def action_toggle_search(self) -> None:
        self.search_mode = not self.search_mode
        self.query_one("#sessions-filter", Input).placeholder = (
            "Search everything said · Ctrl+F back to title filter"
            if self.search_mode
            else "Type to filter by title · Ctrl+F searches everything said"
        )
        self.reload()

    def action_toggle_workspace(self) -> None:
        if self.workspace is not None:
            self.only_workspace = not self.only_workspace
            self.reload()

    def action_cycle_sort(self) -> None:
        keys = list(SORTS)
        self.sort = keys[(keys.index(self.sort) + 1) % len(keys)]
        self.reload()

    def action_fork(self) -> None:
        info = self.selected
        if info is not None:
            new_id = self.store.fork(info.id)
            self.reload()
            self.notify(f"Forked as {new_id[:8]}")

    def action_rename(self) -> None:
        info = self.selected
        if info is None:
            return

        def done(title: str | None) -> None:
            if title:
                self.store.rename(info.id, title)
                self.reload()

        self.app.push_screen(RenameScreen(info.title), done)

    def action_delete(self) -> None:
        info = self.selected
        if info is None:
            return
        if info.id == self.protected_id:
            self.notify("This is the session you are in; open another one to delete it.")
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.store.delete(info.id)
                self.reload()
                self.notify(f"Deleted “{info.title or info.id[:8]}”")

        question = f"Delete “{info.title or info.id[:8]}” for good?"
        self.app.push_screen(ConfirmScreen(question, on_purpose=True), done)  # after Ctrl+D

    def action_export(self, kind: str) -> None:
        info = self.selected
        if info is None:
            return
        target = self.export_dir or (Path(self.workspace) if self.workspace else None)
        if target is None or not target.is_dir():
            from gemtui.config.paths import data_dir

            target = data_dir() / "exports"
            target.mkdir(parents=True, exist_ok=True)
        path = target / f"gemtui-session-{info.id[:8]}.{kind}"
        text = (
            self.store.export_markdown(info.id) if kind == "md" else self.store.export_json(info.id)
        )
        path.write_text(text, encoding="utf-8")
        self.notify(f"Exported to {path}")
