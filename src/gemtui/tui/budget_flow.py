"""What the TUI does when a cap stops the next model call: the question, then the answer
back to the engine that waits for it (``BudgetAsked`` → ``bus.decide``), in one step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from gemtui.bus.events import BudgetAsked
    from gemtui.bus.values import Decision

__all__ = ["STOPPED_NOTICE", "ask_about_budget"]

STOPPED_NOTICE = (
    "Stopped at the budget. Your prompt is kept: Up in the prompt box brings it back, and"
    " sending it again asks again (raise the cap then, or give the model a price)."
)


def ask_about_budget(app: App[Any], asked: BudgetAsked) -> None:
    """Ask the person (raise or stop; go on without a price or stop) and send the answer
    to the session's bus, which the prompt waits on."""
    from gemtui.tui.app_surface import AppSurface
    from gemtui.tui.screens.budget import BudgetScreen

    if not isinstance(app, AppSurface) or app.session is None:
        return
    bus = app.session.bus

    def answered(decision: Decision | None) -> None:
        if decision is None or not decision.decision.allows:
            from gemtui.tui.screens.budget import STOP

            decision = STOP
            app.main.transcript.add_notice(STOPPED_NOTICE, "warning")
        if not bus.decide(asked.correlation_id, decision):
            app.notify("The prompt no longer waits for that answer.", severity="warning")

    screen = BudgetScreen(asked.kind, asked.message, asked.model, asked.spent, asked.cap)
    app.push_screen(screen, answered)
