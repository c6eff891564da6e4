"""What the TUI does when Google refuses the account for Code Assist: the alternatives
dialog, then the chosen provider for the running session (kept for next time), in one step."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.tui.app_surface import AppSurface

__all__ = ["offer_alternatives", "use_provider"]


def offer_alternatives(host: AppSurface, reason: str) -> None:
    """Show Google's reason and what works instead; switch to the one picked."""
    from gemtui.agent.provider_choice import vertex_ready
    from gemtui.tui.screens.refused_account import RefusedAccountScreen

    def done(choice: str | None) -> None:
        if choice is not None:
            use_provider(host, choice)

    host.push_screen(RefusedAccountScreen(reason, vertex_ready=vertex_ready()), done)


def use_provider(host: AppSurface, name: str) -> None:
    """Switch the running session to provider ``name`` (conversation kept) and save it as
    the provider of the next start."""
    from gemtui.agent.provider_choice import DEFAULT_MODELS
    from gemtui.config.user_config import save_choice

    if host.session is None:
        return
    try:
        save_choice("general", "provider", name)
    except (OSError, ValueError) as exc:
        host.notify(f"Could not save the choice: {exc}", severity="warning")
    current = host.session.model
    model = current if "gemini" in current and current != "auto" else DEFAULT_MODELS[name]
    host.controller.switch_model(name, model)
