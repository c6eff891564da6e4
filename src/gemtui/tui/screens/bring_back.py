"""Bringing an agent's work back: its worktree's diff, then merge, keep or discard.

Open it for any git worktree and the branch or commit it started from::

    app.push_screen(BringBackScreen(worktree_path, "main"), on_result)

``base`` may be left out: the main checkout's current HEAD is then the base (what
``gemtui -w`` branched from, unless the checkout moved on). Either way the diff starts
at the merge base of ``base`` and the worktree, so later commits on ``base`` are not
shown as the agent undoing them.

It shows the diff (committed, uncommitted and untracked work) with the approval queue's
``DiffView`` and offers three choices, each confirmed: merge into the main checkout's
current branch (a conflict is shown by file and nothing changes), keep, or discard (the
worktree and its branch removed; the question lists the unmerged commits and uncommitted
files, which need a second, named confirmation; if the worktree holds anything else by the
time it is removed, nothing is, and the question is asked again with the new list).
It dismisses with a ``BringBackOutcome``, or None when left with Esc. The git work runs
in a thread worker (``group="bring-back"``), off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gemtui.config.trust_content import WORKSPACE_CODE_DIRS, WORKSPACE_CODE_FILES
from gemtui.tui.screens.dialogs import DIALOG_CSS, ConfirmScreen
from gemtui.tui.widgets.diff_view import DiffView
from gemtui.worktrees import (
    BringBackError,
    DiscardPlan,
    MergeConflictError,
    WorkChangedError,
    WorkDiff,
    discard,
    discard_plan,
    keep,
    merge,
    work_diff,
)

__all__ = ["BringBackOutcome", "BringBackScreen", "settings_touched"]


def settings_touched(files: tuple[str, ...]) -> list[str]:
    """The files of the work a trusted folder's session would load as settings, policy,
    hooks, commands or agents: merging them changes what runs, so the question names them."""
    dirs = tuple(folder + "/" for folder, _ in WORKSPACE_CODE_DIRS)
    return [f for f in files if f in WORKSPACE_CODE_FILES or f.startswith(dirs)]


@dataclass(frozen=True)
class BringBackOutcome:
    """What was done: ``merged``, ``kept`` or ``discarded``, and the sentence saying so."""

    choice: str
    message: str


class BringBackScreen(ModalScreen[BringBackOutcome | None]):
    """The worktree's diff and the three choices; Enter chooses, Esc goes back."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="BringBackScreen")
        + """
    BringBackScreen #bring-back-diff { height: 1fr; border: round $primary-darken-2; }
    BringBackScreen OptionList { height: auto; }
    BringBackScreen #bring-back-said { height: auto; }
    """
    )
    BINDINGS = [Binding("escape", "back", "Back")]

    def __init__(self, worktree: Path, base: str | None = None) -> None:
        super().__init__()
        self.worktree = worktree
        """The agent's worktree (any ``git worktree add`` path)."""
        self.base = base
        """The branch or commit the worktree started from (None: the main checkout's HEAD)."""
        self.work: WorkDiff | None = None
        """The work read from the worktree, once read."""
        self.busy = False
        """A merge or discard is under way: no other choice starts beside it."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"The work in {self.worktree}", classes="dialog-title", markup=False)
            yield Static("Reading the worktree…", id="bring-back-summary", markup=False)
            yield VerticalScroll(id="bring-back-diff")
            yield Static("", id="bring-back-said", markup=False)
            yield OptionList(
                Option("Merge into the current branch", id="merge", disabled=True),
                Option("Keep the worktree as it is", id="keep", disabled=True),
                Option("Discard the worktree and its branch", id="discard", disabled=True),
                id="bring-back-choices",
            )
            yield Static("Enter chooses · Esc goes back", classes="dialog-keys")

    def on_mount(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="bring-back")
    def _read(self) -> None:
        try:
            found = work_diff(self.worktree, self.base)
        except BringBackError as exc:
            self.app.call_from_thread(self._say, f"Cannot read the worktree: {exc}")
            return
        self.app.call_from_thread(self._show, found)

    def _show(self, found: WorkDiff) -> None:
        self.work = found
        branch = f" on {found.branch}" if found.branch else ""
        parts = [f"{len(found.files)} file(s) changed{branch}", f"{found.commits} commit(s)"]
        if found.uncommitted:
            parts.append(f"uncommitted: {', '.join(found.uncommitted)}")
        self.query_one("#bring-back-summary", Static).update(" · ".join(parts))
        shown = found.diff if not found.empty else "No change against the base."
        self.query_one("#bring-back-diff", VerticalScroll).mount(DiffView(shown))
        choices = self.query_one("#bring-back-choices", OptionList)
        for option_id in ("merge", "keep", "discard"):
            if option_id != "merge" or not found.empty:
                choices.enable_option(option_id)
        choices.highlighted = 1 if found.empty else 0
        choices.focus()

    @staticmethod
    def _merge_detail(found: WorkDiff) -> str:
        more = f" and {len(found.files) - 8} more" if len(found.files) > 8 else ""
        detail = f"{len(found.files)} file(s): {', '.join(found.files[:8])}{more}"
        touched = settings_touched(found.files)
        if touched:
            detail += (
                "\nIt changes what gemtui runs in this folder (settings, policy, hooks, "
                f"commands or agents): {', '.join(touched)}"
            )
        return detail

    def _say(self, text: str) -> None:
        self.query_one("#bring-back-said", Static).update(text)

    def _done_saying(self, text: str) -> None:
        self.busy = False
        self._say(text)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        found = self.work
        if found is None or self.busy:
            return
        choice = event.option.id
        if choice == "keep":
            self.dismiss(BringBackOutcome("kept", keep(found)))
        elif choice == "merge":
            into = found.project
            self.app.push_screen(
                ConfirmScreen(
                    f"Merge this work into the current branch of {into}?",
                    detail=self._merge_detail(found),
                    on_purpose=True,
                ),
                self._merge_confirmed,
            )
        elif choice == "discard":
            self.busy = True
            self._plan_discard()

    @work(thread=True, exclusive=True, group="bring-back")
    def _merge(self) -> None:
        assert self.work is not None
        try:
            head = merge(self.work)
        except MergeConflictError as exc:
            listed = "\n".join(f"  conflict: {name}" for name in exc.files)
            text = f"Not merged: {exc}\n{listed}\nKeep the worktree to resolve it there."
            self.app.call_from_thread(self._done_saying, text)
            return
        except BringBackError as exc:
            self.app.call_from_thread(self._done_saying, f"Not merged: {exc}")
            return
        said = f"merged into {self.work.project} (now at {head[:12]})"
        self.app.call_from_thread(self.dismiss, BringBackOutcome("merged", said))

    @work(thread=True, exclusive=True, group="bring-back")
    def _plan_discard(self) -> None:
        """Read what a discard would remove now: the question names exactly that."""
        assert self.work is not None
        try:
            plan = discard_plan(self.work)
        except BringBackError as exc:
            self.app.call_from_thread(self._done_saying, f"Not discarded: {exc}")
            return
        self.app.call_from_thread(self._ask_discard, plan)

    def _ask_discard(self, plan: DiscardPlan, changed: str = "") -> None:
        """The question, with the worktree, branch, unmerged commits and files it removes."""
        self.busy = False
        question = "Discard this worktree and its branch?"
        if changed:
            self._say(f"Not discarded: {changed}.")
            question = "The worktree changed. Discard it as it is now?"
        self.app.push_screen(
            ConfirmScreen(question, detail=plan.describe(), on_purpose=True),
            lambda yes: self._discard_confirmed(yes, plan),
        )

    @work(thread=True, exclusive=True, group="bring-back")
    def _discard(self, plan: DiscardPlan) -> None:
        assert self.work is not None
        try:
            said = discard(self.work, plan=plan)
        except WorkChangedError as exc:  # something new since the yes: asked again
            self.app.call_from_thread(self._ask_discard, exc.plan, str(exc))
            return
        except BringBackError as exc:
            self.app.call_from_thread(self._done_saying, f"Not discarded: {exc}")
            return
        self.app.call_from_thread(self.dismiss, BringBackOutcome("discarded", said))

    def _ask_uncommitted(self, plan: DiscardPlan) -> None:
        """The second confirmation: uncommitted work is named before it is deleted."""
        self.app.push_screen(
            ConfirmScreen(
                "The worktree has uncommitted work. Delete it too?",
                detail="Never committed, gone for good: " + ", ".join(plan.files),
                on_purpose=True,
            ),
            lambda yes: self._uncommitted_confirmed(yes, plan),
        )

    def _merge_confirmed(self, yes: bool | None) -> None:
        if yes:
            self.busy = True
            self._merge()

    def _discard_confirmed(self, yes: bool | None, plan: DiscardPlan) -> None:
        if not yes:
            return
        if plan.files:
            self._ask_uncommitted(plan)
        else:
            self.busy = True
            self._discard(plan)

    def _uncommitted_confirmed(self, yes: bool | None, plan: DiscardPlan) -> None:
        if yes:
            self.busy = True
            self._discard(plan)
        else:
            self._done_saying("Not discarded: the uncommitted work is kept.")

    def action_back(self) -> None:
        if not self.busy:  # a merge or discard under way ends by itself, then says so
            self.dismiss(None)
