"""The ``/usage`` view: where the money went over the last days.

A bar chart of USD per day (Plotext, through ``textual-plotext``), then the spend per
model and per agent, and the prices used with where each came from. The figures are
the engine's ``UsageReport`` (the same as ``gemtui usage``); this screen only shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from gemtui.tui.screens.dialogs import DIALOG_CSS

if TYPE_CHECKING:
    from gemtui.agent.usage_report import SpendLine, UsageReport

__all__ = ["UsageScreen"]

TICK_EVERY = 7
"""One date under the chart per week, so 30 days stay readable."""


def _money(cost: float | None) -> str:
    return "no price" if cost is None else f"${cost:.4f}"


class UsageScreen(ModalScreen[None]):
    """Spend per day as a chart, then per model and per agent, and the prices used."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="UsageScreen")
        + """
    UsageScreen > Vertical { height: 90%; max-width: 120; }
    UsageScreen PlotextPlot { height: 1fr; min-height: 8; }
    UsageScreen Horizontal { height: auto; max-height: 12; }
    UsageScreen DataTable { width: 1fr; height: auto; max-height: 12; }
    UsageScreen #usage-models { margin: 0 1 0 0; }
    UsageScreen #usage-prices { height: auto; color: $text-muted; margin: 1 0 0 0; }
    """
    )

    BINDINGS = [Binding("escape,q", "close", "Close", priority=True)]

    def __init__(self, report: UsageReport) -> None:
        super().__init__()
        self.report = report
        """The figures shown (read from the store before the screen opened)."""

    def compose(self) -> ComposeResult:
        report = self.report
        with Vertical():
            yield Static(
                f"Spend since {report.since} ({report.days} days): ${report.total:.4f}",
                classes="dialog-title",
            )
            yield PlotextPlot(id="usage-chart")
            with Horizontal():
                yield DataTable(id="usage-models", cursor_type="none", zebra_stripes=True)
                yield DataTable(id="usage-agents", cursor_type="none", zebra_stripes=True)
            yield Static(self._prices(), id="usage-prices", markup=False)
            yield Static("Esc close · gemtui usage --json for scripts", classes="dialog-keys")

    def on_mount(self) -> None:
        self._chart()
        self._table("#usage-models", "Model", self.report.per_model)
        self._table("#usage-agents", "Agent", self.report.per_agent)

    def _chart(self) -> None:
        days = self.report.per_day
        plt = self.query_one(PlotextPlot).plt
        plt.clear_figure()
        plt.title("USD per day")
        plt.bar(list(range(len(days))), [d.cost or 0.0 for d in days], width=0.6)
        ticks = list(range(len(days) - 1, -1, -TICK_EVERY))[::-1]
        plt.xticks([float(i) for i in ticks], [days[i].name[5:] for i in ticks])  # MM-DD

    def _table(self, selector: str, title: str, lines: list[SpendLine]) -> None:
        table = self.query_one(selector, DataTable)
        table.add_columns(title, "USD", "tokens", "calls")
        for line in lines:
            # Text: a model named ``qwen[/no_think]`` is a name, not markup
            table.add_row(Text(line.name), _money(line.cost), f"{line.tokens:,}", str(line.calls))
        if not lines:
            table.add_row("nothing spent yet", "", "", "")

    def _prices(self) -> str:
        said = [
            f"{model}: ${price.get('input', 0):.2f} in, ${price.get('output', 0):.2f} out"
            f" per million — {price['source']}"
            if price["source"]
            else f'{model}: no price known (not counted): add [prices."{model}"] to config.toml'
            for model, price in sorted(self.report.prices.items())
        ]
        return "Prices used:\n" + "\n".join(said) if said else "No model calls in these days."

    def action_close(self) -> None:
        self.dismiss(None)
