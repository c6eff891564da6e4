"""``/skills``: list, enable, disable or reload Agent Skills (``slash.py`` holds the table)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.tui.app_surface import AppSurface

__all__ = ["skills"]


def skills(app: AppSurface, arg: str) -> None:
    """``/skills [list]`` names each skill, where it comes from and whether it is offered;
    ``/skills enable|disable NAME`` switches one (remembered); ``/skills reload`` reads the
    folders again."""
    if app.session is None:
        return
    from gemtui.agent.skill_command import skills_command

    text, understood = skills_command(app.session, arg)
    app.notify(text, severity="information" if understood else "warning", timeout=20)
