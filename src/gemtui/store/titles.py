"""Session titles: at once from the first prompt, optionally improved by a cheap model call.

The first-prompt title is what headless runs keep (DESIGN: ``-p`` makes no extra model
calls). ``improve_title`` is for the TUI to run in the background; it never raises and
never overwrites a title the person chose.

A title is masked before it is cut: cutting first could keep the first half of a key,
which no redactor would then recognise.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from gemtui.redact import redact

if TYPE_CHECKING:
    from gemtui.store.store import StoreCore

__all__ = ["SHELL_MODE", "TITLE_PROMPT", "improve_title", "title_from_prompt"]

log = logging.getLogger(__name__)

MAX_TITLE = 60

SHELL_MODE = "shell mode (!)"
"""The description a ``!`` command's call carries: a session of only ``!`` commands is
titled from the first one (``!ls -la``), not left "(untitled)"."""

TITLE_PROMPT = (
    "Write a title of at most six words for a conversation that starts with the message "
    "below. Answer with the title only, no quotes.\n\n{prompt}"
)


def title_from_prompt(prompt: str, limit: int = MAX_TITLE) -> str:
    """The first meaningful line, secrets masked, whitespace collapsed, cut at a word."""
    line = next((ln.strip() for ln in redact(prompt).splitlines() if ln.strip()), "")
    line = re.sub(r"\s+", " ", line)
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,.;:") + "…"


async def improve_title(
    store: StoreCore,
    session_id: str,
    prompt: str,
    generate: Callable[[str], Awaitable[str]],
) -> str | None:
    """Ask a cheap model for a better title; keep it only if the title is still the auto one."""
    auto = title_from_prompt(prompt)
    try:
        answer = await generate(TITLE_PROMPT.format(prompt=prompt[:2000]))
    except Exception:  # a title is a nicety: never let it break anything
        log.debug("title generation failed", exc_info=True)
        return None
    better = title_from_prompt(answer.strip().strip("\"'`"))
    info = store.get(session_id)
    if not better or info is None or info.title not in ("", auto):
        return None
    store.rename(session_id, better)
    return better
