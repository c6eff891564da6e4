"""The fallback question in the TUI: before the conversation moves to another model, the
person is asked, with the new model's price (issue 37: a fallback that asks)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.fallback import FallbackAsk, FallbackOffer
    from gemtui.tui.controller_host import ControllerHost

__all__ = ["fallback_question"]


def fallback_question(host: ControllerHost) -> FallbackAsk:
    """What the executor awaits on an offered switch: the person's answer to a dialog
    (switch / stop); what they were typing stays in the prompt either way."""

    async def ask(offer: FallbackOffer) -> bool:
        from textual.app import App

        from gemtui.tui.screen_reader import say_line
        from gemtui.tui.screens.dialogs import FallbackScreen
        from gemtui.tui.view.spoken import FALLBACK_KEYS

        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def done(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        question = f"Switch from {offer.source} to {offer.target}?"
        detail = (
            f"{offer.source}: {offer.reason}\n"
            f"{offer.target} costs {offer.price}.\n"
            "Switch to go on with it, or stop this prompt."
        )
        host.push_screen(FallbackScreen(question, detail=detail), done)
        if isinstance(host, App):  # the screen-reader mode says it, with its keys
            say_line(host, f"Question: {question} {' '.join(detail.split())} {FALLBACK_KEYS}")
        return await answer

    return ask
