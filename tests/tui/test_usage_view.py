"""``/usage``: where the money went, as a chart of USD per day and the per-model and
per-agent table, read from the real store (issue 37, item 5)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable
from textual_plotext import PlotextPlot

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.agent.usage_report import usage_report
from gemtui.config.settings import Settings
from gemtui.providers.replay import ReplayGenerator
from gemtui.store import SessionStore
from gemtui.store.subagent_log import add_subagent_message
from gemtui.tui.app import GemtuiApp
from gemtui.tui.screens.usage import UsageScreen
from gemtui.wire import Content
from tests.tui.helpers import tables_measured

TODAY = dt.date(2026, 11, 26)
"""The snapshot's day: its chart's dates never move."""


def _at(day: dt.date, hour: int = 12) -> float:
    return dt.datetime.combine(day, dt.time(hour)).timestamp()


def _seed(store: SessionStore, today: dt.date) -> None:
    """A fortnight of work: the conversation's calls on gemini-2.5-flash ($0.30 per
    million prompt tokens) most days, a pro call and a subagent's call now and then."""
    sid = store.create_session(title="work", model="gemini-2.5-flash")
    add_subagent_message(store, sid, "call-1", "codebase_investigator", 0, Content.user("look"))
    for back in range(14):
        day = today - dt.timedelta(days=back)
        calls = [("gemini-2.5-flash", (back % 5 + 1) * 400_000, None)]
        if back % 4 == 0:
            calls.append(("gemini-2.5-pro", 200_000, None))
        if back % 3 == 0:
            calls.append(("gemini-2.5-flash", 500_000, "call-1"))
        for model, tokens, parent in calls:
            store.add_usage(sid, model=model, input=tokens, output=tokens // 10, parent_call=parent)
            store._conn.execute(
                "UPDATE usage SET created = ? WHERE id = last_insert_rowid()", (_at(day),)
            )


def _app(tmp_path: Path, store: SessionStore, settings: Settings | None = None) -> GemtuiApp:
    settings = settings or Settings()
    provider = ResolvedProvider(
        "gemini", "gemini", ReplayGenerator([]), "gemini-2.5-flash", 1_048_576
    )
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    session = Session(settings, provider, SessionOptions(workspace=workspace))
    return GemtuiApp(
        settings=settings, session=session, workspace=workspace, raise_errors=True, store=store
    )


async def _read(app: GemtuiApp) -> None:
    """Wait for ``/usage``'s read of the store (the app's other workers run on)."""
    reading = [w for w in app.workers if w.group == "usage"]
    if reading:  # an empty list would wait for every worker
        await app.workers.wait_for_complete(reading)


def _rows(screen: UsageScreen, selector: str) -> dict[str, list[str]]:
    table = screen.query_one(selector, DataTable)
    rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
    return {row[0]: row[1:] for row in rows}


async def test_slash_usage_opens_the_chart_and_the_table_from_the_store(tmp_path: Path) -> None:
    """Typed at the prompt, ``/usage`` reads every stored call of the last 30 days and
    shows today's spend per model and per agent, and the chart of the days."""
    store = SessionStore()
    _seed(store, dt.date.today())
    app = _app(tmp_path, store)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.click("PromptInput")
        await pilot.press(*"/usage", "enter")
        await _read(app)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, UsageScreen)
        expected = usage_report(store, 30)
        assert screen.report.total == expected.total > 0
        models = _rows(screen, "#usage-models")
        flash = next(m for m in expected.per_model if m.name == "gemini-2.5-flash")
        assert models["gemini-2.5-flash"][0] == f"${flash.cost:.4f}"
        assert set(models) == {"gemini-2.5-flash", "gemini-2.5-pro"}
        assert set(_rows(screen, "#usage-agents")) == {"main", "codebase_investigator"}
        assert screen.query_one(PlotextPlot).plt is not None
        await pilot.press("escape")
        assert not isinstance(app.screen, UsageScreen)


async def test_usage_and_the_sessions_browser_price_with_this_apps_settings(
    tmp_path: Path,
) -> None:
    """``[prices."MODEL"]`` of the running settings price ``/usage`` and the browser's
    cost column; another session's settings built later in the process change neither
    (they were read from one process-wide table, the last assembled)."""
    from gemtui.agent.assembly import RunOptions, build_session
    from gemtui.tui.screens.sessions import SessionsScreen

    store = SessionStore()
    _seed(store, dt.date.today())
    own = Settings.model_validate({"prices": {"gemini-2.5-flash": {"input": 10.0, "output": 0}}})
    other = Settings.model_validate({"prices": {"gemini-2.5-flash": {"input": 0, "output": 0}}})
    app = _app(tmp_path, store, own)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        (tmp_path / "b").mkdir()
        (tmp_path / "none.jsonl").write_text("")
        build_session(
            other,
            RunOptions(workspace=tmp_path / "b", fake_responses=str(tmp_path / "none.jsonl")),
            trusted=False,
        ).session.close_background()
        app.run_slash("/usage")
        await _read(app)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, UsageScreen)
        flash = next(m for m in screen.report.per_model if m.name == "gemini-2.5-flash")
        prompt_tokens = sum((b % 5 + 1) * 400_000 + 500_000 * (b % 3 == 0) for b in range(14))
        assert flash.cost == pytest.approx(prompt_tokens * 10.0 / 1_000_000)
        await pilot.press("escape")
        app.run_slash("/sessions")
        await pilot.pause()
        browser = app.screen
        assert isinstance(browser, SessionsScreen)
        browser.action_toggle_workspace()  # the seeded session is of no folder: all folders
        await pilot.pause()
        table = browser.query_one("#sessions-table", DataTable)
        column = browser._columns.index("cost")
        costs = [str(table.get_row_at(i)[column]) for i in range(table.row_count)]
        assert costs == [f"${store.list_sessions()[0].tokens_input * 10.0 / 1e6:.2f}"]


async def test_a_bad_days_argument_is_said_and_opens_nothing(tmp_path: Path) -> None:
    app = _app(tmp_path, SessionStore())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.run_slash("/usage soon")
        await _read(app)
        await pilot.pause()
        assert not isinstance(app.screen, UsageScreen)
        assert any("/usage [DAYS]" in str(n.message) for n in app._notifications)
        app.run_slash("/usage 7")  # control: a good count opens the view
        await _read(app)
        await pilot.pause()
        assert isinstance(app.screen, UsageScreen)
        assert len(app.screen.report.per_day) == 7


class TestUsageSnapshot:
    def test_usage_chart_and_table(self, snap_compare: Any, tmp_path: Path) -> None:
        """A modal "Spend since 2026-10-28 (30 days)" with its total; a bar chart titled
        "USD per day", bars over the last fourteen days only, dates under it weekly
        (MM-DD); below, two tables: per model (gemini-2.5-flash first, then
        gemini-2.5-pro) and per agent (main, codebase_investigator), each with USD,
        tokens and calls; then the prices used, each with Google's pricing page and the
        date it was taken."""
        store = SessionStore()
        _seed(store, TODAY)
        report = usage_report(store, 30, today=TODAY)

        async def open_view(pilot: Pilot[Any]) -> None:
            await pilot.pause()
            await pilot.app.push_screen(UsageScreen(report))
            await tables_measured(pilot)

        assert snap_compare(_app(tmp_path, store), terminal_size=(120, 40), run_before=open_view)


async def test_a_model_name_that_looks_like_markup_is_shown_as_it_is(tmp_path: Path) -> None:
    """``qwen[/no_think]`` was read as a closing markup tag and the view raised; it is
    a name, shown as written (the control: a plain name beside it is shown too)."""
    store = SessionStore()
    sid = store.create_session(title="work", model="qwen[/no_think]")
    for model in ("qwen[/no_think]", "plain-model"):
        store.add_usage(sid, model=model, input=1000, output=100, parent_call=None)
    app = _app(tmp_path, store)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.app.push_screen(UsageScreen(usage_report(store, 30)))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, UsageScreen)
        models = _rows(screen, "#usage-models")
    assert set(models) == {"qwen[/no_think]", "plain-model"}
