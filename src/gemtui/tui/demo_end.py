"""The demo's end: once its recorded turn is played, a prompt opens the welcome screen.

The demo plays one recorded conversation. A prompt sent after it would ask the replay for
a response it does not have and end in an error; instead the prompt is kept, a line says
the demo is over, and the welcome screen offers the real ways in (Esc goes back).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.tui.app_surface import AppSurface

__all__ = ["DEMO_ENDED", "DEMO_OVER", "demo_over"]

DEMO_OVER = (
    "The demo is over: it plays one recorded turn. To start for real, choose how to reach "
    "a model on the welcome screen (your prompt is kept); Esc there comes back here."
)

DEMO_ENDED = (
    "The demo has ended. To start for real, choose how to reach a model below; it is saved "
    "for next time, your prompt is kept, and Esc goes back to the demo."
)
"""What the welcome screen says when the demo's end opened it."""


def demo_over(app: AppSurface, text: str) -> bool:
    """True (and the welcome screen opened) when ``text`` would go to the demo's replay
    with nothing left to play; a ``!`` command needs no model and goes on."""
    from gemtui.providers.replay import ReplayGenerator

    session = app.session
    player = session.provider.generator if session is not None else None
    if not isinstance(player, ReplayGenerator) or not player.exhausted or text.startswith("!"):
        return False  # every prompt asks: the welcome screen is imported only for the demo
    from gemtui.tui.screens.welcome import DEMO_SCRIPT

    if player.source is None or Path(player.source).resolve() != DEMO_SCRIPT:
        return False  # a test's own recording: running out is its error to see
    prompt = app.main.prompt
    if not prompt.text:
        prompt.text = text
    app.main.transcript.add_notice(DEMO_OVER)
    app.controller.choose_provider(DEMO_ENDED)
    return True
