"""What ``!`` commands (and hooks' extra context) leave for the next prompt.

A ``!`` line runs at once, without a model call; the model hears of it with the next
prompt, in Gemini CLI's words ("I ran the following shell command: …").
"""

from __future__ import annotations

import re

from msgspec import Struct, field

from gemtui.wire import Part

__all__ = ["ShellNotes", "read_note"]

_NOTE = re.compile(
    r"I ran the following shell command:\n(`{3,})sh\n(?P<line>.*?)\n\1\n\n"
    r"This produced the following result:\n(`{3,})\n(?P<result>.*)\n\3",
    re.DOTALL,
)
_EXIT = re.compile(r"\n\[exit code (-?\d+)\]\Z")


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text`` (so output holding
    ````` ``` ````` cannot end the block early)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def read_note(text: str) -> tuple[str, str, int | None] | None:
    """(line, output, exit code) of a note ``add`` wrote; None for any other text (a
    resumed session shows each as the card the live one had)."""
    found = _NOTE.fullmatch(text)
    if found is None:
        return None
    result = found["result"]
    code = _EXIT.search(result)
    if code is not None:
        return found["line"], result[: code.start()], int(code[1])
    return found["line"], result, None


class ShellNotes(Struct):
    """``!`` commands run since the last prompt, in the words the model will read."""

    pending: list[str] = field(default_factory=list)
    typed_read_only: bool | None = None
    """Whether read-only commands the person types run unasked (None: not offered yet)."""

    def add(self, line: str, output: str, code: int | None) -> None:
        result = output.rstrip() or "(no output)"
        if code not in (0, None):
            result += f"\n[exit code {code}]"
        said, out = _fence(line), _fence(result)
        self.pending.append(
            f"I ran the following shell command:\n{said}sh\n{line}\n{said}\n\n"
            f"This produced the following result:\n{out}\n{result}\n{out}"
        )

    def attach(self, message: str | list[Part]) -> str | list[Part]:
        """The prompt's parts with the pending notes after it (then forgotten)."""
        if not self.pending:
            return message
        parts = [Part(text=message)] if isinstance(message, str) else list(message)
        parts += [Part(text=note) for note in self.pending]
        self.pending.clear()
        return parts
