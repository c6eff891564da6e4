"""The transcript's flush pace: a frame apart, a key's frame first, never put off long."""

from __future__ import annotations

import pytest

from gemtui.tui.widgets.flush_pace import FRAME, KEY_FIRST, KEY_FIRST_AT_MOST, flush_delay


def test_flushes_are_a_frame_apart() -> None:
    assert flush_delay(now=10.0, last_flush=10.0, key_at=0.0) == pytest.approx(FRAME)
    assert flush_delay(now=11.0, last_flush=10.0, key_at=0.0) == 0.001  # overdue: at once


def test_a_key_just_typed_puts_the_flush_after_its_frame() -> None:
    assert flush_delay(now=11.0, last_flush=10.95, key_at=11.0) == pytest.approx(KEY_FIRST)
    half = flush_delay(now=11.0, last_flush=10.95, key_at=11.0 - KEY_FIRST / 2)
    assert half == pytest.approx(KEY_FIRST / 2)


def test_keys_never_put_the_flush_off_past_the_bound() -> None:
    last = 10.0
    now = last + KEY_FIRST_AT_MOST
    assert flush_delay(now=now, last_flush=last, key_at=now) == 0.001  # a held key: drawn
    assert flush_delay(now=now - 0.001, last_flush=last, key_at=1e9) <= KEY_FIRST
