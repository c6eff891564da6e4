"""The store's spend by day, model and agent (``gemtui usage`` and ``/usage`` read it)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from gemtui.store import SessionStore
from gemtui.store.spend import MAIN_AGENT
from gemtui.store.subagent_log import add_subagent_message
from gemtui.wire import Content


def _at(day: dt.date) -> float:
    return dt.datetime.combine(day, dt.time(23, 30)).timestamp()


def test_calls_are_summed_per_local_day_model_and_agent(tmp_path: Path) -> None:
    today = dt.date(2026, 11, 26)
    with SessionStore(tmp_path / "s.db") as store:
        sid = store.create_session(title="t")
        add_subagent_message(store, sid, "c1", "codebase_investigator", 0, Content.user("go"))
        for day, model, parent in [
            (today, "m1", None),
            (today, "m1", None),
            (today, "m1", "c1"),
            (today - dt.timedelta(days=1), "m2", None),
            (today - dt.timedelta(days=9), "m1", None),  # before the window
        ]:
            store.add_usage(sid, model=model, input=10, output=2, thoughts=1, parent_call=parent)
            store._conn.execute(
                "UPDATE usage SET created = ? WHERE id = last_insert_rowid()", (_at(day),)
            )
        since = dt.datetime.combine(today - dt.timedelta(days=1), dt.time()).timestamp()
        rows = [(r.day, r.model, r.agent, r.calls, r.input) for r in store.spend(since)]
    assert rows == [
        ("2026-11-25", "m2", MAIN_AGENT, 1, 10),
        ("2026-11-26", "m1", "codebase_investigator", 1, 10),
        ("2026-11-26", "m1", MAIN_AGENT, 2, 20),
    ]


def test_the_query_by_time_uses_the_index(tmp_path: Path) -> None:
    """A store of months of calls is read by time, not scanned whole."""
    with SessionStore(tmp_path / "s.db") as store:
        plan = store._query("EXPLAIN QUERY PLAN SELECT model FROM usage WHERE created >= ?", (0.0,))
    assert any("usage_created" in str(step) for step in plan), plan
