"""The agent view: every agent at a glance, which one waits for you, which one is done.

It reads the app's ``FleetDesk`` (plain rows, never a session's internals): Enter brings
an agent to the front, Esc goes back, ``n`` starts a new one, ``s`` stops one, ``x``
removes a finished one. Attention lines (an agent that came to need you or finished
in the background) and a limit reached are listed under the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Checkbox, Input, Static

from gemtui.tui.agent_rows import AgentRequest, AgentRow, elapsed_text
from gemtui.tui.widgets.key_hints import KeyHint, KeyHints
from gemtui.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from gemtui.tui.fleet_desk import FleetDesk

__all__ = ["AGENT_KEYS", "STATE_WORDS", "AgentsScreen", "NewAgentScreen"]

STATE_WORDS: dict[str, tuple[str, str]] = {
    "idle": ("○ idle", "$foreground-muted"),
    "working": ("● working", "$text-primary"),
    "waiting": ("? waiting for you", "bold $text-warning"),
    "done": ("✓ done", "$text-success"),
    "failed": ("✗ failed", "$text-error"),
    "cancelled": ("■ cancelled", "$foreground-muted"),
}
"""Each state as the table says it."""

AGENT_KEYS: list[KeyHint] = [
    ("Enter", "Enter", "to the front", "front"),
    ("n", "n", "new agent", "new"),
    ("s", "s", "stop", "stop"),
    ("x", "x", "remove finished", "remove"),
    ("Esc", "Esc", "back", "back"),
]

_COLUMNS: dict[str, int | None] = {
    "Agent": 30,
    "State": 17,
    "Model": None,
    "Elapsed": None,
    "Tokens": None,
    "Cost": None,
    "Worktree / branch": None,
}
"""Each column and its width (None: as wide as its widest cell)."""
LINES_SHOWN = 6
"""Attention lines listed under the table (the newest)."""


def _one_line(text: str) -> str:
    """A row is one line: a task typed with line breaks or tabs (a headless ``-p``) would
    end the row early or push the later columns out."""
    return " ".join(text.split())


def _cells(row: AgentRow, now: float, front: bool) -> list[Content]:
    """A row's cells, each shown as written (``Content`` of a ``str`` is never read as
    markup: a model or folder named ``[/x]`` once stopped the view)."""
    words, style = STATE_WORDS[row.state]
    where = _one_line(row.workspace + (f" ⎇ {row.branch}" if row.branch else ""))
    task = _one_line(row.task)[:28]
    return [
        Content.styled(("▶ " if front else "  ") + task, "bold" if front else ""),
        Content.styled(words, style),
        Content(_one_line(f"{row.provider}:{row.model}")),
        Content(elapsed_text(row, now)),
        Content(f"{row.tokens:,}"),
        Content("—" if row.cost is None else f"${row.cost:.2f}"),
        Content(where),
    ]


class AgentsScreen(Screen[None]):
    """Every agent with its state, task, model, time, tokens, cost and worktree."""

    DEFAULT_CSS = """
    AgentsScreen { layout: vertical; background: $background; }
    AgentsScreen #agents-header { height: 1; padding: 0 1; background: $panel; }
    AgentsScreen #agents-table { height: 1fr; }
    AgentsScreen #agents-lines { height: auto; padding: 0 1; color: $text-warning; }
    AgentsScreen #agents-keys { height: auto; padding: 0 1; background: $panel; }
    """

    BINDINGS: ClassVar = [
        Binding("enter", "front", "To the front", priority=True),
        Binding("n", "new", "New agent"),
        Binding("s", "stop", "Stop"),
        Binding("x", "remove", "Remove"),
        Binding("b", "bring_back", "Bring back"),
        Binding("escape", "back", "Back"),
    ]

    clock: Callable[[], float] = staticmethod(time.time)
    """The clock elapsed times are counted on (tests pin it)."""

    def __init__(
        self,
        desk: FleetDesk,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.desk = desk

    def compose(self) -> ComposeResult:
        yield Static(id="agents-header")
        yield RowTable(_COLUMNS, id="agents-table")
        yield Static(id="agents-lines")
        yield KeyHints(AGENT_KEYS, id="agents-keys", wrap=True)

    def on_mount(self) -> None:
        self.show_rows()
        self.desk.views.append(self.show_rows)
        self.query_one("#agents-table", RowTable).focus()
        self.set_interval(1.0, self.show_rows, name="agents-clock")

    def on_unmount(self) -> None:
        if self.show_rows in self.desk.views:
            self.desk.views.remove(self.show_rows)

    def show_rows(self) -> None:
        """Redraw from the desk's rows, keeping the cursor on the same agent."""
        rows = self.desk.shown_rows()
        front = self.desk.fleet.front_id
        now = self.clock()
        self.query_one("#agents-table", RowTable).set_rows(
            [(row.id, _cells(row, now, row.id == front)) for row in rows]
        )
        working = sum(r.state == "working" for r in rows)
        waiting = sum(r.state == "waiting" for r in rows)
        head = f"Agents: {len(rows)} · {working} working · {waiting} waiting for you"
        self.query_one("#agents-header", Static).update(Content.styled(head, "bold"))
        notes = list(self.desk.lines[-LINES_SHOWN:])
        limit = self.desk.fleet.limit_note
        if limit and limit not in notes:
            notes.append(limit)
        self.query_one("#agents-lines", Static).update(Content("\n".join(notes)))

    def chosen(self) -> str | None:
        """The agent under the cursor."""
        return self.query_one("#agents-table", RowTable).cursor_key

    def action_front(self) -> None:
        chosen = self.chosen()
        if chosen is not None:
            self.desk.bring_to_front(chosen)
            self.dismiss()

    def action_back(self) -> None:
        self.dismiss()

    def action_new(self) -> None:
        def started(request: AgentRequest | None) -> None:
            if request is not None and self.desk.start(request) is not None:
                self.desk.apply_rows()

        self.app.push_screen(NewAgentScreen(self.desk), started)

    def action_stop(self) -> None:
        chosen = self.chosen()
        if chosen is not None:
            self.desk.stop(chosen)

    def action_remove(self) -> None:
        chosen = self.chosen()
        if chosen is not None:
            self.desk.remove(chosen)

    def action_bring_back(self) -> None:
        """An agent in a worktree: its diff, and merge, keep or discard (one at a time)."""
        from pathlib import Path

        from gemtui.tui.screens.bring_back import BringBackScreen

        chosen = self.chosen()
        row = self.desk.row(chosen) if chosen is not None else None
        if row is None or not row.branch or not row.workspace:
            self.notify("Only an agent in its own worktree has work to bring back.")
            return
        self.app.push_screen(BringBackScreen(Path(row.workspace)))


class NewAgentScreen(ModalScreen[AgentRequest | None]):
    """A task, a model (empty: the front agent's) and "in a new worktree"."""

    DEFAULT_CSS = """
    NewAgentScreen { align: center middle; background: $background 60%; }
    NewAgentScreen > .dialog {
        width: 72; height: auto; border: thick $primary; background: $surface; padding: 0 1;
    }
    NewAgentScreen .dialog-title { text-style: bold; }
    NewAgentScreen .dialog-keys { color: $text-muted; }
    """

    BINDINGS: ClassVar = [
        # Priority: the checkbox would take Enter as "toggle" (Space toggles it).
        Binding("enter", "start", "Start", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, desk: FleetDesk) -> None:
        super().__init__()
        self.desk = desk
        """Keeps what was typed when the form is cancelled: it is there again next time."""

    def compose(self) -> ComposeResult:
        draft = self.desk.draft
        with Vertical(classes="dialog"):
            yield Static("New agent", classes="dialog-title")
            yield Input(  # a draft kept from last time is continued, not selected away
                draft.task, placeholder="What should it do?", select_on_focus=False, id="agent-task"
            )
            yield Input(
                draft.model, placeholder="Model (empty: the same as in front)", id="agent-model"
            )
            yield Checkbox("In a new worktree", draft.new_worktree, id="agent-worktree")
            yield Static(
                "Enter start · Tab next field · Space tick · Esc cancel", classes="dialog-keys"
            )

    def action_start(self) -> None:
        task = self.query_one("#agent-task", Input).value.strip()
        if not task:
            self.notify("Say what the agent should do first.", severity="warning")
            self.query_one("#agent-task", Input).focus()
            return
        self.desk.draft = AgentRequest("")
        self.dismiss(self._request(task))

    def _request(self, task: str) -> AgentRequest:
        return AgentRequest(
            task,
            self.query_one("#agent-model", Input).value.strip(),
            self.query_one("#agent-worktree", Checkbox).value,
        )

    def action_cancel(self) -> None:
        self.desk.draft = self._request(self.query_one("#agent-task", Input).value)
        self.dismiss(None)
