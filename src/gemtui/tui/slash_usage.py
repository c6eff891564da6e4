"""``/usage``: where the money went, read from the store off the UI thread and shown in
its own screen (``slash.py`` holds the table)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemtui.tui.store_opening import STILL_OPENING, hurry_store

if TYPE_CHECKING:
    from gemtui.agent.prices import PriceBook
    from gemtui.tui.app_surface import AppSurface

__all__ = ["own_prices", "usage"]


def own_prices(app: AppSurface) -> PriceBook:
    """The running settings' ``[prices."MODEL"]``: what the views of the store price
    with (the session's own book, never another session's)."""
    from gemtui.agent.prices import price_book

    return price_book(app.controller.settings)


def usage(app: AppSurface, arg: str) -> None:
    """``/usage [DAYS]``: spend per day as a chart, per model and per agent, from the store
    (every session and agent), read off the UI thread, then shown in its own screen."""
    from gemtui.agent.usage_report import DEFAULT_DAYS, MAX_DAYS, usage_report

    store = app.controller.store
    if store is None:
        closed = "/usage reads the session store, which is not open; see the log."
        app.notify(STILL_OPENING if hurry_store(app.controller) else closed)
        return
    days = int(arg) if arg.strip().isdigit() else DEFAULT_DAYS if not arg.strip() else 0
    if not 1 <= days <= MAX_DAYS:
        app.notify(
            f"Usage: /usage [DAYS] (1 to {MAX_DAYS}), not {arg.strip()!r}", severity="warning"
        )
        return

    prices = own_prices(app)

    async def read() -> None:
        import asyncio

        from gemtui.tui.screens.usage import UsageScreen

        report = await asyncio.to_thread(usage_report, store, days, None, prices)
        app.push_screen(UsageScreen(report))

    app.run_worker(read(), group="usage", exclusive=True)
