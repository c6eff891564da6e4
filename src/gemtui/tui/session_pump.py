"""The start-up screen's session pump: its events wait for the panes, mounted only once
the engine is built (issue 34)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemtui.tui.bridge import pump_events

if TYPE_CHECKING:
    from gemtui.agent.session import Session
    from gemtui.bus import Subscription
    from gemtui.tui.screens.main import MainScreen

__all__ = ["pump_when_panes", "show_price"]


async def pump_when_panes(screen: MainScreen, session: Session, subscription: Subscription) -> None:
    """``session``'s events to ``screen`` once its panes are mounted. The start-up screen
    mounts them only now, after a waiting prompt's turn has started: mounted while the
    engine loaded, they took the interpreter from it and delayed that prompt's request
    (issue 34). Events meanwhile wait in ``subscription``."""
    await screen.panes_ready()
    show_price(screen, session)
    await pump_events(session.bus, screen, subscription=subscription)


def show_price(screen: MainScreen, session: Session) -> None:
    """The usage pane is told whether the session's model has a price (else it says so)."""
    from gemtui.agent.prices import price_book, price_for

    prices = price_book(session.settings, session.provider.settings.prices)
    screen.usage.expect_price(price_for(session.model, prices) is not None)
