"""The token usage pane: this turn, this session, a sparkline, the context share, cost."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import ProgressBar, Static

from gemtui.bus.values import Usage
from gemtui.tui.widgets.quiet_update import update_static

if TYPE_CHECKING:
    from textual.timer import Timer

    from gemtui.bus.events import AccountStatus
    from gemtui.bus.rate_limits import RateLimits

__all__ = ["UsagePanel"]


def short(n: int) -> str:
    """A token count in at most five characters: 9,999 · 12.3k · 123k · 1.05M."""
    if n < 10_000:
        return f"{n:,}"
    if n < 100_000:
        return f"{n / 1000:.1f}k"
    if n < 1_000_000:
        return f"{n // 1000}k"
    if n < 10_000_000:
        return f"{n / 1_000_000:.2f}M"
    if n < 100_000_000:
        return f"{n / 1_000_000:.1f}M"
    return f"{n // 1_000_000}M"


_COLUMNS = ("in", "out", "think", "cache")
_BARS = "▁▂▃▄▅▆▇█"
TREND_TURNS = 24
LIVE_INTERVAL = 0.25
"""Seconds between redraws of the live streaming estimate: each redraw lays the screen
out again, and an answer arrives in dozens of chunks a second."""
"""Turns the sparkline shows at most (the latest), one bar each."""


def sparkline(values: list[int]) -> str:
    """One bar per turn, scaled from zero to the largest, so heights compare honestly."""
    peak = max(values, default=0) or 1
    return "".join(_BARS[min(7, round(7 * v / peak))] for v in values)


def _table(turn: Usage, session: Usage) -> Content:
    """Turn and session figures as a small table: a row each, a column per kind, so the
    pane's default width never wraps a figure onto a line of its own."""
    head = Content.styled(f"{'':<7}" + "".join(f"{c:>6}" for c in _COLUMNS), "$text-muted")
    rows: list[Content | str] = [head]
    for label, usage in (("turn", turn), ("session", session)):
        figures = (usage.input, usage.output, usage.thoughts, usage.cached)
        rows.append("\n")
        rows.append(Content.styled(f"{label:<7}", "bold"))
        rows.append("".join(f"{short(n):>6}" for n in figures))
    return Content.assemble(*rows)


class UsagePanel(VerticalScroll, can_focus=False):
    """Token counts from ``TurnFinished`` events, live estimates while streaming."""

    DEFAULT_CSS = """
    UsagePanel {
        height: auto;
        max-height: 50%;
    }
    UsagePanel { scrollbar-size-vertical: 1; }
    UsagePanel > Static { height: auto; }
    UsagePanel > #usage-trend { color: $text-muted; margin-top: 1; }
    UsagePanel > #usage-sparkline { color: $primary; }
    UsagePanel > .-hidden { display: none; }
    UsagePanel > ProgressBar { height: 1; margin-top: 1; }
    UsagePanel Bar { width: 1fr; }
    UsagePanel Bar > .bar--bar { background: $panel-lighten-2; }
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
        self.calling = False
        """A model call is in flight: the live estimate's line is shown (from ~0)."""
        self.last_prompt_tokens = 0
        self.account: AccountStatus | None = None
        """The Google account behind code-assist (its tier and quota), when there is one."""
        self.limits: RateLimits | None = None
        """The provider's rate limits as its last answer said them (None: never said)."""
        self.by_agent: dict[str, tuple[int, float]] = {}
        """Subagents' tokens and cost, by agent name (they are in the session figures too)."""
        self._live_timer: Timer | None = None
        self._live_stale = False
        """Streamed text arrived since the estimate was last drawn."""

    def compose(self) -> ComposeResult:
        yield Static(id="usage-numbers")
        yield Static(id="usage-trend", classes="-hidden")
        yield Static(id="usage-sparkline", classes="-hidden")
        yield ProgressBar(total=100, show_eta=False, show_percentage=False, id="usage-context")
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
        self.calling = False
        self.flush_live()
        if cost is not None:
            self.cost += cost
            self.priced = True
        self._refresh_numbers()

    def record_subagent_turn(self, agent: str, usage: Usage, cost: float | None) -> None:
        """A subagent's model call: it counts in the session and its cost, and in the
        agent's own line; the turn row and the context share stay the conversation's."""
        self.session = self.session + usage
        tokens, spent = self.by_agent.get(agent, (0, 0.0))
        total = usage.total or usage.input + usage.output + usage.thoughts
        self.by_agent[agent] = (tokens + total, spent + (cost or 0.0))
        if cost is not None:
            self.cost += cost
            self.priced = True
        self._refresh_numbers()

    def reset(self) -> None:
        """Another session is shown now: its own figures replace these."""
        self.turn, self.session = Usage(), Usage()
        self.per_turn.clear()
        self.compressions.clear()
        self.cost, self.priced = 0.0, False
        self.by_agent.clear()
        self.streamed_chars = self.last_prompt_tokens = 0
        self.calling = False  # that session's call in flight is not this one's
        self._refresh_numbers()

    def end_stream(self) -> None:
        """The answer in flight stopped without a usage report (cancelled): drop the
        estimate; the engine reports what the call cost as a turn of its own."""
        if self.streamed_chars or self.calling:
            self.streamed_chars = 0
            self.calling = False
            self._refresh_numbers()

    def call_started(self) -> None:
        """A model call began: the estimate's line shows now, from ~0, so the pane is laid
        out with the prompt's own frame and the first line of the answer draws no layout
        of the screen (~25 ms of the first line's frame, issue 34)."""
        if not self.calling:
            self.calling = True
            self._refresh_numbers()

    def expect_price(self, priced: bool) -> None:
        """Whether the model in use has a known price: its cost shows from the start."""
        self.priced = self.priced or priced
        self._refresh_numbers()

    def follow_model(self, context_window: int, priced: bool) -> None:
        """Another model answers from now on: measure against its window."""
        self.context_window = context_window
        self.expect_price(priced)

    def record_streamed(self, text: str) -> None:
        """Text arrived for the turn in flight: a live, rough output estimate."""
        self.streamed_chars += len(text)
        if self._live_timer is not None:  # drawn lately: the timer draws the rest
            self._live_stale = True
            return
        self._refresh_numbers()
        if self.is_attached:
            self._live_timer = self.set_timer(LIVE_INTERVAL, self._live_due, name="usage-live")

    def _live_due(self) -> None:
        """Draw the estimate once for all the chunks of the last interval."""
        self._live_timer = None
        if self._live_stale:
            self._refresh_numbers()
            self._live_timer = self.set_timer(LIVE_INTERVAL, self._live_due, name="usage-live")

    def flush_live(self) -> None:
        """Draw the estimate for every chunk so far now, not at the next interval: a new
        turn starts its own estimate at once, and a picture of the screen shows it whole."""
        if self._live_timer is not None:
            self._live_timer.stop()
            self._live_timer = None
        if self._live_stale:
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
        from gemtui.bus.events import quota_lines

        return [who, *quota_lines(a.quota)]

    def show_limits(self, limits: RateLimits) -> None:
        self.limits = limits
        self._refresh_numbers()

    def limit_lines(self) -> list[str]:
        """The rate limits left, one line each (empty when the provider said none)."""
        return self.limits.lines() if self.limits is not None else []

    def record_compression(self, before: int, after: int) -> None:
        self.compressions.append((before, after))
        self.last_prompt_tokens = after
        self._refresh_numbers()

    def _refresh_numbers(self) -> None:
        self._live_stale = False
        live = Content("")
        if self.streamed_chars or self.calling:
            # here, not at the top: ``gemtui.wire`` brings pydantic, which the first frame avoids
            from gemtui.wire.token_estimate import tokens_for_chars

            streamed = tokens_for_chars(self.streamed_chars)
            live = Content.styled(f"\nstreaming ~{streamed:,} tokens", "italic")
        update_static(
            self.query_one("#usage-numbers", Static),
            Content.assemble(_table(self.turn, self.session), live),
        )
        trend = len(self.per_turn) >= 2  # one bar says nothing about a trend
        for name in ("#usage-trend", "#usage-sparkline"):
            self.query_one(name).set_class(not trend, "-hidden")
        if trend:
            recent = self.per_turn[-TREND_TURNS:]
            update_static(
                self.query_one("#usage-trend", Static),
                Content(f"tokens per turn (peak {short(max(recent))})"),
            )
            update_static(self.query_one("#usage-sparkline", Static), Content(sparkline(recent)))
        share = 0.0
        if self.context_window:
            share = min(100.0, 100.0 * self.last_prompt_tokens / self.context_window)
        self.query_one(ProgressBar).update(progress=share)
        notes: list[Content | str] = [
            f"context {share:.1f}% · {short(self.last_prompt_tokens)}"
            f" of {short(self.context_window)}"
            if self.context_window
            else "context window unknown"
        ]
        notes.append(f"\ncost ${self.cost:.4f}" if self.priced else "\ncost: no price known")
        for agent, (tokens, spent) in sorted(self.by_agent.items()):
            money = f" · ${spent:.4f}" if self.priced else ""
            notes.append(
                Content.styled(f"\n  {agent}: {short(tokens)} tokens{money}", "$text-muted")
            )
        for line in [*self.account_lines(), *self.limit_lines()]:
            notes.append(Content.styled(f"\n{line}", "$text-muted"))
        for before, after in self.compressions[-3:]:
            notes.append(Content.styled(f"\ncompressed {before:,} → {after:,}", "$text-accent"))
        update_static(self.query_one("#usage-notes", Static), Content.assemble(*notes))
