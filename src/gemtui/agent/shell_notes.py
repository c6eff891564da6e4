"""What ``!`` commands (and hooks' extra context) leave for the next prompt.

A ``!`` line runs at once, without a model call; the model hears of it with the next
prompt, in Gemini CLI's words ("I ran the following shell command: …").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gemtui.wire import Part

__all__ = ["ShellNotes"]


@dataclass
class ShellNotes:
    """``!`` commands run since the last prompt, in the words the model will read."""

    pending: list[str] = field(default_factory=list)
    typed_read_only: bool | None = None
    """Whether read-only commands the person types run unasked (None: not offered yet)."""

    def add(self, line: str, output: str, code: int | None) -> None:
        result = output.rstrip() or "(no output)"
        if code not in (0, None):
            result += f"\n[exit code {code}]"
        self.pending.append(
            f"I ran the following shell command:\n```sh\n{line}\n```\n\n"
            f"This produced the following result:\n```\n{result}\n```"
        )

    def attach(self, message: str | list[Part]) -> str | list[Part]:
        """The prompt's parts with the pending notes after it (then forgotten)."""
        if not self.pending:
            return message
        parts = [Part(text=message)] if isinstance(message, str) else list(message)
        parts += [Part(text=note) for note in self.pending]
        self.pending.clear()
        return parts
