"""How a cancelled prompt stays in the conversation: the prompt as it was sent, whatever
was answered before the cancel, then a note in the person's turn saying it was cancelled.

Why: the history keeps what the person asked (the views show it, marked as cancelled),
but the next request must never present it as a question still open, or the model
answers it along with the new prompt. Claude Code records an interruption the same way
(a user message saying so); Codex records an aborted turn. The note stands alone in the
history, so views and the store can tell it from a prompt; requests join it to the next
prompt's turn (roles keep alternating for every provider).
"""

from __future__ import annotations

from gemtui.wire.types import Content, Part

__all__ = ["CANCELLED_NOTE", "cancel_note", "is_cancel_note"]

CANCELLED_NOTE = (
    "[The person cancelled their request above before it was finished; any answer to it"
    " stops where it was cut off. Do not continue it or act on it unless they ask for it"
    " again.]"
)
"""What the model reads after a cancelled prompt."""


def cancel_note() -> Content:
    """The note that follows a cancelled prompt (set apart by blank lines: a provider that
    sends a turn's texts as one string joins them without a separator)."""
    return Content(role="user", parts=[Part(text=f"\n\n{CANCELLED_NOTE}\n\n")])


def is_cancel_note(content: Content) -> bool:
    """Whether ``content`` is the note after a cancelled prompt, not something typed."""
    return (
        content.role == "user"
        and len(content.parts) == 1
        and (content.parts[0].text or "").strip() == CANCELLED_NOTE
    )
