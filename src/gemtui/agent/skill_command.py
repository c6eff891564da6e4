"""``/skills list|enable NAME|disable NAME|reload``: one answer for every front end.

The TUI shows the text in a notice, ACP says it as an agent message. A skill switched on
or off is remembered in the user config (``[skills] disabled``), as Gemini CLI keeps it
in its settings, and the next request offers the skills as they now are: the system
instruction is built again, its context files read again as ``/memory refresh`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.session import Session

__all__ = ["SKILLS_USAGE", "skills_command"]

SKILLS_USAGE = "Usage: /skills [list | enable NAME | disable NAME | reload]"


def skills_command(session: Session, arg: str) -> tuple[str, bool]:
    """The answer to ``/skills ARG`` and whether it was understood (False: a usage hint)."""
    verb, _, name = arg.strip().partition(" ")
    name = name.strip()
    skills = session.skills
    if verb == "reload":
        found = skills.reload()
        session.refresh_context()
        broken = f", {len(found.problems)} not loaded (see the warnings)" if found.problems else ""
        return f"Skills reloaded: {len(skills.enabled)} enabled{broken}.", True
    if verb in ("enable", "disable") and name:
        if name not in skills.found.skills:
            return f"No skill named {name!r} (see /skills list).", False
        skills.set_enabled(name, verb == "enable")
        _remember(sorted(skills.disabled))
        session.refresh_context()
        return f"Skill {name} {verb}d.", True
    if verb not in ("", "list") or name:
        return SKILLS_USAGE, False
    listed = sorted(skills.found.skills.values(), key=lambda s: s.name)
    if not listed:
        return (
            "No skills. Put a folder with a SKILL.md in ~/.gemini/skills/ or the project's "
            ".gemini/skills/ (trusted folders), or run gemtui skills install PATH.",
            True,
        )
    lines = ["Skills (the model activates one with activate_skill):"]
    for s in listed:
        state = "disabled" if s.name in skills.disabled else "enabled"
        lines.append(f"{s.name} ({s.source}, {state}): {s.folder}\n  {s.description}")
    lines += [f"not loaded: {p}" for p in skills.found.problems]
    return "\n".join(lines), True


def _remember(disabled: list[str]) -> None:
    """Keep the choice for later sessions; a config that cannot be written costs only that."""
    import contextlib

    from gemtui.config.user_config import save_choice

    with contextlib.suppress(OSError, ValueError):
        save_choice("skills", "disabled", disabled)
