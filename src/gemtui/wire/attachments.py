"""How a prompt carries attached files (``@path``): the text the person typed, then a
marker part, then the files' contents. Views show the typed text; the model reads all."""

from __future__ import annotations

from gemtui.wire.types import Content

__all__ = ["ATTACHED_MARK", "typed_text"]

ATTACHED_MARK = "\n--- Content from referenced files ---\n"
"""The part that separates what the person typed from the files attached to it."""


def typed_text(content: Content) -> str:
    """The message's text up to the attached files (thoughts left out)."""
    out: list[str] = []
    for part in content.parts:
        if part.text == ATTACHED_MARK:
            break
        if part.text and not part.thought:
            out.append(part.text)
    return "".join(out)
