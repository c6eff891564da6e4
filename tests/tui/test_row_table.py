"""The agent view's table: a row cursor that follows its agent, keys, a click, scrolling,
and rows drawn again only when what they show changed (the view's 1 s clock)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.visual import Visual

from gemtui.tui.widgets.row_table import RowTable

COLUMNS: dict[str, int | None] = {"Agent": 12, "Elapsed": None}


def _rows(count: int, elapsed: str = "1s") -> list[tuple[str, list[Content]]]:
    return [(f"a{i}", [Content(f"task {i}"), Content(elapsed)]) for i in range(count)]


class _TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield RowTable(COLUMNS)

    @property
    def table(self) -> RowTable:
        return self.query_one(RowTable)


async def test_keys_move_the_cursor_and_it_stays_on_its_row_when_rows_move() -> None:
    app = _TableApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.table
        table.set_rows(_rows(5))
        table.focus()
        await pilot.press("down", "down")
        assert table.cursor_key == "a2"
        table.set_rows(list(reversed(_rows(5))))  # a2 is now the third from the end
        assert table.cursor_key == "a2"
        assert table.cursor_row == 2
        table.set_rows(_rows(8))
        await pilot.press("end")
        assert table.cursor_key == "a7"
        await pilot.press("home", "up")
        assert table.cursor_key == "a0"
        table.set_rows(_rows(3))  # the row it was on is gone: the cursor stays in range
        await pilot.press("end")
        table.set_rows(_rows(1))
        assert table.cursor_key == "a0"
        table.set_rows([])
        assert table.cursor_key is None
        assert table.row_count == 0


async def test_the_cursor_scrolls_into_view_and_a_click_chooses_a_row() -> None:
    app = _TableApp()
    async with app.run_test(size=(40, 8)) as pilot:
        table = app.table
        table.set_rows(_rows(50))
        table.focus()
        await pilot.pause()  # laid out with its 50 rows
        await pilot.press("end")
        await pilot.pause()
        shown = [table.render_line(y).text.split() for y in range(table.size.height)]
        assert shown[0] == ["Agent", "Elapsed"]  # the header stays on top however far it scrolled
        assert shown[-1] == ["task", "49", "1s"]
        assert ["task", "0", "1s"] not in shown
        await pilot.click(RowTable, offset=(3, 3))  # scrolled: the third row shown
        assert table.cursor_key == f"a{int(table.scroll_offset.y) + 2}"
        await pilot.press("home")
        await pilot.pause()
        await pilot.click(RowTable, offset=(3, 3))  # the third row under the header
        assert table.cursor_key == "a2"
        table.set_rows(_rows(3))
        await pilot.pause()
        await pilot.click(RowTable, offset=(3, 6))  # below the last row: nothing chosen
        assert table.cursor_key == "a2"


async def test_the_clock_draws_again_only_the_rows_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn: list[str] = []
    to_strips = Visual.to_strips

    def counted(widget: Any, visual: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(widget, RowTable):
            drawn.append(visual.plain)
        return to_strips(widget, visual, *args, **kwargs)

    monkeypatch.setattr(Visual, "to_strips", staticmethod(counted))
    app = _TableApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.table
        table.set_rows(_rows(4))
        await pilot.pause()
        assert [line.split()[:2] for line in drawn if line.strip()] == [
            ["Agent", "Elapsed"],
            *(["task", str(i)] for i in range(4)),
        ]
        drawn.clear()
        table.set_rows(_rows(4))  # the clock ticked and nothing changed
        await pilot.pause()
        assert drawn == []
        rows = _rows(4)
        rows[3] = ("a3", [Content("task 3"), Content("2s")])
        table.set_rows(rows)
        await pilot.pause()
        assert [line.split() for line in drawn] == [["task", "3", "2s"]]
