"""What the TUI does when a cap stops the next model call: the question, then the answer
back to the engine that waits for it (``BudgetAsked`` → ``bus.decide``), in one step."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from gemtui.bus.events import BudgetAsked
    from gemtui.bus.values import Decision
    from gemtui.tui.widgets.transcript import Transcript

__all__ = ["STOPPED_NOTICE", "ask_about_budget"]

STOPPED_NOTICE = (
    "Stopped at the budget. Your prompt is kept: Up in the prompt box brings it back, and"
    " sending it again asks again (raise the cap then, or give the model a price)."
)


def ask_about_budget(app: App[Any], asked: BudgetAsked, transcript: Transcript) -> None:
    """Ask the person (raise or stop; go on without a price or stop) and send the answer
    to the session's bus, which the prompt waits on; a stop is said in ``transcript``
    (the asking screen's). A prompt that ends first (Ctrl+C, its time limit) takes the
    question with it."""
    from gemtui.tui.screens.budget import BudgetScreen

    # The app's surface by name: importing AppSurface here would tie this module, the
    # main screen that calls it and the app into one import cycle.
    session = getattr(app, "session", None)
    if session is None:
        return
    bus = session.bus  # the asking session's, even if another comes to the front

    def answered(decision: Decision | None) -> None:
        if decision is None:  # the prompt ended without an answer: nothing waits
            return
        if not decision.decision.allows:
            transcript.add_notice(STOPPED_NOTICE, "warning")
        if not bus.decide(asked.correlation_id, decision):
            app.notify("The prompt no longer waits for that answer.", severity="warning")

    screen = BudgetScreen(asked.kind, asked.message, asked.model, asked.spent, asked.cap)
    turns = [worker for worker in app.workers if worker.group == "turn"]

    async def close_with_the_prompt() -> None:
        for worker in turns:
            with contextlib.suppress(Exception):  # how it ended is the turn's to say
                await worker.wait()
        if app.screen is screen:  # still unanswered (never another screen on top of it)
            screen.dismiss(None)

    app.push_screen(screen, answered)
    if turns:
        app.run_worker(close_with_the_prompt(), group="budget-question", exit_on_error=False)
