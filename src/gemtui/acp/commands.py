"""The slash commands that make sense in an editor, offered as ``available_commands``.

``/compress``, ``/memory``, ``/stats`` and ``/model`` run here and answer as an agent
message; custom ``.toml`` commands are offered too and expand in the session as they do
in the TUI and headless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from gemtui.acp.updates import stats_text

if TYPE_CHECKING:
    from gemtui.acp.conversation import Conversation
    from gemtui.agent.session import Session

__all__ = ["available_commands", "run_command"]

BUILTIN = {
    "compress": ("Replace the conversation so far with a summary", None),
    "memory": (
        "Show, refresh or add to the context files (GEMINI.md)",
        "show | refresh | add FACT",
    ),
    "stats": ("Tokens and cost of this session", None),
    "model": ("Show or switch the model", "NAME"),
}


def available_commands(session: Session) -> list[AvailableCommand]:
    out = []
    for name, (description, hint) in BUILTIN.items():
        arg = AvailableCommandInput(UnstructuredCommandInput(hint=hint)) if hint else None
        out.append(AvailableCommand(name=name, description=description, input=arg))
    for cmd in session.commands.commands.values():
        if cmd.name not in BUILTIN:
            out.append(AvailableCommand(name=cmd.name, description=cmd.description or cmd.name))
    return out


async def run_command(conv: Conversation, text: str) -> bool:
    """Run a built-in command; False when ``text`` is not one (it goes to the session)."""
    name, _, rest = text[1:].partition(" ")
    rest = rest.strip()
    session = conv.session
    if name not in BUILTIN:
        return False
    if name == "compress":
        await session.compress()
        await conv.say("Conversation compressed.")
    elif name == "stats":
        await conv.say(stats_text(conv.mapper, session.model))
    elif name == "memory":
        if rest == "refresh":
            files = session.refresh_context()
            await conv.say(files.summary())
        elif rest.startswith("add "):
            path = session.add_memory(rest[4:].strip())
            await conv.say(f"Saved to {path}.")
        else:
            await conv.say(session.context_files.summary())
    elif name == "model":
        if rest:
            await session.switch_model(rest)
        await conv.say(f"Model: {session.model}")
    return True
