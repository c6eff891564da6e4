"""Every change the view model can ask for has a widget call on the main screen: an op
added to ``tui.view.ops`` without one would fail only when its event first arrives."""

from __future__ import annotations

from pathlib import Path

from gemtui.tui.screens.main import MainScreen
from gemtui.tui.view import ops


def test_the_main_screen_draws_every_view_op(tmp_path: Path) -> None:
    table = MainScreen(workspace=tmp_path).drawing.table()
    every = {
        op
        for name in ops.__all__
        if isinstance(op := getattr(ops, name), type)
        and issubclass(op, ops.Op)
        and op is not ops.Op
    }
    assert len(every) > 20  # the ops were found
    assert set(table) == every
