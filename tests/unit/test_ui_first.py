"""``ui_first``: the switch interval is short while any background work runs, and the
one found first is put back when the last of them ends (several sessions start at once)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest

from gemtui.tui.ui_first import UI_SWITCH_INTERVAL, ui_first


@pytest.fixture(autouse=True)
def known_interval() -> Iterator[float]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    yield 0.005
    sys.setswitchinterval(before)


def test_overlapping_uses_keep_it_short_until_the_last_ends() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[float] = []

    def first() -> None:
        with ui_first():
            first_in.set()
            second_in.wait()
        first_out.set()

    def second() -> None:
        first_in.wait()
        with ui_first():
            second_in.set()
            first_out.wait()
            seen.append(sys.getswitchinterval())  # the first has ended, this one runs
        seen.append(sys.getswitchinterval())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [UI_SWITCH_INTERVAL, 0.005]


def _fails(seen: list[float]) -> None:
    with ui_first():
        seen.append(sys.getswitchinterval())
        raise RuntimeError("the build failed")


def test_a_shorter_interval_already_set_is_kept_and_restored_after_a_failure() -> None:
    sys.setswitchinterval(0.0002)
    seen: list[float] = []
    with pytest.raises(RuntimeError):
        _fails(seen)
    assert seen == [pytest.approx(0.0002, abs=2e-6)]
    assert sys.getswitchinterval() == pytest.approx(0.0002, abs=2e-6)
