"""The token usage pane: this turn, this session, a sparkline, the context share, cost."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import ProgressBar, Sparkline, Static

from gemtui.bus.events import AccountStatus, Usage, quota_lines

__all__ = ["UsagePanel"]


def _line(label: str, usage: Usage) -> Content:
    return Content.assemble(
        (f"{label:<8}", "bold"),
        f"in {usage.input:,}  out {usage.output:,}\n",
        (f"{'':<8}think {usage.thoughts:,}  cached {usage.cached:,}", "$text-muted"),
    )


class UsagePanel(VerticalScroll, can_focus=False):
    """Token counts from ``TurnFinished`` events, live estimates while streaming."""

    DEFAULT_CSS = """
    UsagePanel {
        height: auto;
        max-height: 50%;
    }
    UsagePanel > Static { height: auto; }
    UsagePanel > Sparkline { height: 2; margin: 0 1; }
    UsagePanel > ProgressBar { height: 1; }
    """

    def __init__(
        self,
        *,
        context_window: int = 0,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.context_window = context_window
        """The model's context window in tokens (0 when unknown)."""
        self.turn = Usage()
        self.session = Usage()
        self.per_turn: list[int] = []
        self.cost = 0.0
        self.priced = False
        self.compressions: list[tuple[int, int]] = []
        self.streamed_chars = 0
        self.last_prompt_tokens = 0
        self.account: AccountStatus | None = None
        """The Google account behind code-assist (its tier and quota), when there is one."""

    def compose(self) -> ComposeResult:
        yield Static(id="usage-numbers")
        yield Sparkline([], id="usage-sparkline")
        yield ProgressBar(total=100, show_eta=False, id="usage-context")
        yield Static(id="usage-notes")

    def on_mount(self) -> None:
        self._refresh_numbers()

    def record_turn(self, usage: Usage, cost: float | None) -> None:
        """One model call finished: add its usage and its cost (priced by the engine)."""
        self.turn = usage
        self.session = self.session + usage
        self.per_turn.append(usage.total or usage.input + usage.output + usage.thoughts)
        self.last_prompt_tokens = usage.input
        self.streamed_chars = 0
        if cost is not None:
            self.cost += cost
            self.priced = True
        self.query_one(Sparkline).data = list(self.per_turn)
        self._refresh_numbers()

    def reset(self) -> None:
        """Another session is shown now: its own figures replace these."""
        self.turn, self.session = Usage(), Usage()
        self.per_turn.clear()
        self.compressions.clear()
        self.cost, self.priced = 0.0, False
        self.streamed_chars = self.last_prompt_tokens = 0
        self.query_one(Sparkline).data = []
        self._refresh_numbers()

    def end_stream(self) -> None:
        """The answer in flight stopped without a usage report (cancelled): drop the
        estimate; the engine reports what the call cost as a turn of its own."""
        if self.streamed_chars:
            self.streamed_chars = 0
            self._refresh_numbers()

    def expect_price(self, priced: bool) -> None:
        """Whether the model in use has a known price: its cost shows from the start."""
        self.priced = self.priced or priced
        self._refresh_numbers()

    def record_streamed(self, text: str) -> None:
        """Text arrived for the turn in flight: a live, rough output estimate."""
        self.streamed_chars += len(text)
        self._refresh_numbers()

    def show_account(self, status: AccountStatus) -> None:
        self.account = status
        self._refresh_numbers()

    def account_lines(self) -> list[str]:
        """Who is signed in, the tier and the quota left (empty without a Google account)."""
        a = self.account
        if a is None:
            return []
        who = " · ".join(x for x in (a.email, a.tier, a.project) if x)
        return [who, *quota_lines(a.quota)]

    def record_compression(self, before: int, after: int) -> None:
        self.compressions.append((before, after))
        self.last_prompt_tokens = after
        self._refresh_numbers()

    def _refresh_numbers(self) -> None:
        live = (
            Content.styled(f"\nstreaming ~{self.streamed_chars // 4:,} tokens", "italic")
            if self.streamed_chars
            else Content("")
        )
        self.query_one("#usage-numbers", Static).update(
            Content.assemble(_line("turn", self.turn), "\n", _line("session", self.session), live)
        )
        share = 0.0
        if self.context_window:
            share = min(100.0, 100.0 * self.last_prompt_tokens / self.context_window)
        self.query_one(ProgressBar).update(progress=share)
        notes: list[Content | str] = [
            f"context {self.last_prompt_tokens:,} / {self.context_window:,}"
            if self.context_window
            else "context window unknown"
        ]
        notes.append(f"\ncost ${self.cost:.4f}" if self.priced else "\ncost: no price known")
        for line in self.account_lines():
            notes.append(Content.styled(f"\n{line}", "$text-muted"))
        for before, after in self.compressions[-3:]:
            notes.append(Content.styled(f"\ncompressed {before:,} → {after:,}", "$text-accent"))
        self.query_one("#usage-notes", Static).update(Content.assemble(*notes))
