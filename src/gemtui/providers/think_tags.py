"""``<think>…</think>`` in streamed text, split into thought and visible pieces.

Tags match in any case (``<Think>``, ``</THINK>``). A tag split across chunks is held
back until complete, so nothing of it leaks. Some chat templates open the thought in the
prompt (QwQ, DeepSeek-R1, the Qwen3 Thinking releases): their answer starts inside a
thought and only a lone ``</think>`` marks its end. With ``opened`` the splitter holds
the start of the answer until a tag decides: a lone ``</think>`` turns everything before
it into thought, a ``<think>`` first means the text before it was an answer, and a
stream that ends with neither was all answer. Without ``opened`` the answer streams at
once; a lone ``</think>`` is then dropped, and what is still held before it (never what
was already shown) becomes thought.
"""

from __future__ import annotations

__all__ = ["ThinkSplitter"]

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that is a proper start of ``tag``."""
    for k in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:k]):
            return k
    return 0


class ThinkSplitter:
    """Splits streamed text into (is_thought, text) pieces at think tags."""

    def __init__(self, *, opened: bool = False) -> None:
        self._inside = False
        self._undecided = opened
        """The answer may have started inside a thought; held until a tag decides."""
        self._buf = ""

    def feed(self, text: str) -> list[tuple[bool, str]]:
        self._buf += text
        out: list[tuple[bool, str]] = []
        while True:
            low = self._buf.lower()
            if self._undecided:
                start, end = low.find(THINK_OPEN), low.find(THINK_CLOSE)
                if end >= 0 and (start < 0 or end < start):
                    self._emit(out, True, self._buf[:end])
                    self._buf = self._buf[end + len(THINK_CLOSE) :]
                elif start >= 0:
                    self._emit(out, False, self._buf[:start])
                    self._buf = self._buf[start + len(THINK_OPEN) :]
                    self._inside = True
                else:
                    return out
                self._undecided = False
                continue
            tag = THINK_CLOSE if self._inside else THINK_OPEN
            i = low.find(tag)
            lone = -1 if self._inside else low.find(THINK_CLOSE)
            if lone >= 0 and (i < 0 or lone < i):  # a closing tag with no opening one
                self._emit(out, True, self._buf[:lone])
                self._buf = self._buf[lone + len(THINK_CLOSE) :]
                continue
            if i >= 0:
                self._emit(out, self._inside, self._buf[:i])
                self._buf = self._buf[i + len(tag) :]
                self._inside = not self._inside
                continue
            keep = _partial_suffix(low, tag)
            if not self._inside:
                keep = max(keep, _partial_suffix(low, THINK_CLOSE))
            self._emit(out, self._inside, self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep :]
            return out

    def flush(self) -> list[tuple[bool, str]]:
        rest, self._buf = self._buf, ""
        return [(self._inside, rest)] if rest else []

    @staticmethod
    def _emit(out: list[tuple[bool, str]], thought: bool, text: str) -> None:
        if text:
            out.append((thought, text))
