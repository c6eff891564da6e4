"""The collector is paused for start-up only, and always comes back."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from gemtui.collector import YOUNG_THRESHOLD, pause_collector, resume_collector, start_up


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.enable()
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_paused_then_resumed_with_start_up_frozen() -> None:
    pause_collector()
    assert not gc.isenabled()
    kept = [object() for _ in range(10)]
    resume_collector()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # start-up's objects are out of the collector's sight
    resume_collector()  # twice is harmless
    assert gc.isenabled()
    assert kept


def test_after_start_up_the_youngest_generation_is_larger() -> None:
    """A streamed answer's short-lived lines die young instead of setting off full
    collections (issue 36); the older generations keep Python's settings."""
    gc.set_threshold(700, 10, 10)
    pause_collector()
    resume_collector()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)


def test_a_collector_someone_else_turned_off_stays_off() -> None:
    gc.disable()
    pause_collector()
    resume_collector()
    assert not gc.isenabled()


def test_start_up_resumes_however_the_run_ends() -> None:
    seen: list[bool] = []

    def failing_run() -> None:
        with start_up():
            seen.append(gc.isenabled())
            raise RuntimeError("a run that failed before its engine was built")

    with pytest.raises(RuntimeError):
        failing_run()
    assert seen == [False]
    assert gc.isenabled()
