"""What a resumed session shows: every turn it had, not only what the model still sees.

A compression replaces the history with a summary (sent as a user message, acknowledged
by the model) and the newest turns; a rewrite after a failed write stores it all again.
The store keeps every such history (an epoch). Laid end to end, with the overlap between
one and the next dropped and the summary exchange left out, they give the story as the
person lived it; a ``None`` marks where a compression happened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemtui.chat.compression import is_summary_exchange

if TYPE_CHECKING:
    from gemtui.wire import Content

__all__ = ["COMPRESSED_HERE", "resume_story"]

COMPRESSED_HERE = (
    "Earlier turns were compressed into a summary here: they are shown above, the model "
    "now sees only the summary of them."
)


def _shown(content: Content) -> str:
    """What of ``content`` the story shows, to find overlaps by: a thought signature is the
    wire's (one epoch may carry the placeholder a request added, the next not), so two
    epochs holding the same turn told apart by it drew that turn twice."""
    parts = {"parts": {"__all__": {"thought_signature"}}}
    return content.model_dump_json(exclude_none=True, exclude=parts)


def _overlap(shown: list[str], body: list[str]) -> int:
    """The longest run that ends ``shown`` and starts ``body``."""
    for k in range(min(len(shown), len(body)), 0, -1):
        if shown[-k:] == body[:k]:
            return k
    return 0


def resume_story(epochs: list[list[Content]], current: list[Content]) -> list[Content | None]:
    """The contents to show for a session whose stored histories are ``epochs`` and whose
    chat holds ``current`` now (it stands for the last epoch); ``None`` = compressed here."""
    out: list[Content | None] = []
    shown: list[str] = []
    for contents in [*epochs[:-1], current]:
        body = list(contents)
        compressed = False
        while body and is_summary_exchange(body[0]):
            compressed = True
            body.pop(0)
        wire = [_shown(c) for c in body]
        start = _overlap(shown, wire)
        if compressed:
            out.append(None)
        out.extend(body[start:])
        shown.extend(wire[start:])
    return out
