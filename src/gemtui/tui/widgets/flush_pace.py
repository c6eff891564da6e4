"""When a streamed answer's next re-render (its flush) runs: the transcript's pace.

At most ``1 / FRAME`` flushes a second, and a key typed goes first (issue 36): a flush
due within a frame of a key waits until the key's frame (Textual draws at 60 Hz) has
been composed, so what is typed is drawn before the answer's re-render, not after it.
"""

from __future__ import annotations

__all__ = ["FRAME", "KEY_FIRST", "KEY_FIRST_AT_MOST", "flush_delay", "key_first", "last_key"]

FRAME = 1 / 30
"""The shortest interval between two flushes."""
KEY_FIRST = 1 / 60
"""How long after a key the answer's next flush waits (then it looks again)."""
KEY_FIRST_AT_MOST = 3 * FRAME
"""Keys put the answer off no longer than this since its last flush (a key held down
repeats at up to 60 Hz or more: the answer still moves)."""


def key_first(now: float, last_flush: float, key_at: float) -> float:
    """Seconds the flush waits for the frame of the key typed at ``key_at`` (0: none)."""
    if now >= last_flush + KEY_FIRST_AT_MOST:
        return 0.0
    return max(0.0, min(KEY_FIRST, key_at + KEY_FIRST - now))


def flush_delay(now: float, last_flush: float, key_at: float) -> float:
    """Seconds until the next flush: a frame after the last one, and after a key's frame."""
    return max(0.001, last_flush + FRAME - now, key_first(now, last_flush, key_at))


def last_key(app: object) -> float:
    """When ``app`` saw its last key (``GemtuiApp.key_at``; 0.0 for an app keeping none)."""
    key_at: float = getattr(app, "key_at", 0.0)
    return key_at
