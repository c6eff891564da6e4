"""Stops a model that repeats itself: the same call, or the same answer, over and over."""

from __future__ import annotations

import json

from msgspec import Struct, field

from gemtui.wire import FunctionCall

__all__ = ["LoopDetector"]


class LoopDetector(Struct):
    """Notices a model repeating the same call or text, so a prompt cannot spin forever."""

    call_threshold: int = 5
    """Identical consecutive calls that count as a loop."""
    text_threshold: int = 3
    """Identical consecutive non-empty answers that count as a loop."""
    _last_call: str | None = field(default=None)
    _call_count: int = field(default=0)
    _last_text: str | None = field(default=None)
    _text_count: int = field(default=0)

    def observe_call(self, call: FunctionCall) -> str | None:
        key = f"{call.name}:{json.dumps(call.args, sort_keys=True, default=str)}"
        if key == self._last_call:
            self._call_count += 1
        else:
            self._last_call, self._call_count = key, 1
        if self._call_count >= self.call_threshold:
            n = self._call_count
            return f"The model called {call.name} with the same arguments {n} times in a row."
        return None

    def observe_text(self, text: str) -> str | None:
        text = text.strip()
        if not text:
            return None
        if text == self._last_text:
            self._text_count += 1
        else:
            self._last_text, self._text_count = text, 1
        if self._text_count >= self.text_threshold:
            return f"The model gave the same answer {self._text_count} times in a row."
        return None
