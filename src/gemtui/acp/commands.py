"""The slash commands that make sense in an editor, offered as ``available_commands``.

``/compress``, ``/memory``, ``/skills``, ``/stats`` and ``/model`` run here and answer as an agent
message; an MCP server's prompts are ``/server:prompt`` (filled in and sent as the
prompt); custom ``.toml`` commands are offered too and expand in the session as they do
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
    "skills": (
        "List, enable, disable or reload Agent Skills",
        "list | enable NAME | disable NAME | reload",
    ),
}


def _hint(text: str | None) -> AvailableCommandInput | None:
    return AvailableCommandInput(UnstructuredCommandInput(hint=text)) if text else None


def available_commands(session: Session) -> list[AvailableCommand]:
    out = [
        AvailableCommand(name=name, description=description, input=_hint(hint))
        for name, (description, hint) in BUILTIN.items()
    ]
    if session.mcp is not None:
        for server, prompt in session.mcp.prompts():
            params = " ".join(f"{a.name}=…" for a in prompt.arguments or [])
            out.append(
                AvailableCommand(
                    name=f"{server}:{prompt.name}",
                    description=prompt.description or f"Prompt {prompt.name} of {server}",
                    input=_hint(params),
                )
            )
    for cmd in session.commands.commands.values():
        if cmd.name not in BUILTIN:
            out.append(AvailableCommand(name=cmd.name, description=cmd.description or cmd.name))
    return out


async def _mcp_prompt(conv: Conversation, name: str, arg: str) -> str | bool:
    """The server's prompt filled in (the text to send), True when said why not, or False
    when no ready server has such a prompt."""
    from gemtui.mcp.manager import McpCallError
    from gemtui.mcp.prompt_args import find_prompt, missing_arguments, prompt_values

    tools = conv.session.mcp
    found = find_prompt(tools.prompts(), name) if tools is not None else None
    if tools is None or found is None:
        return False
    server, prompt = found
    values = prompt_values(prompt, arg)
    missing = missing_arguments(prompt, values)
    if missing:
        await conv.say(f"/{server}:{prompt.name} needs {', '.join(missing)}.")
        return True
    try:
        return await tools.manager.get_prompt(server, prompt.name, values)
    except McpCallError as exc:
        await conv.say(str(exc))
        return True


async def run_command(conv: Conversation, text: str) -> str | bool:
    """Run a command: True when it answered, a text to send as the prompt instead (an MCP
    prompt), or False when ``text`` is none of these (it goes to the session as it is)."""
    name, _, rest = text[1:].partition(" ")
    rest = rest.strip()
    session = conv.session
    if ":" in name:
        return await _mcp_prompt(conv, name, rest)
    if name not in BUILTIN:
        return False
    if name == "compress":
        await session.compress()
        await conv.say("Conversation compressed.")
    elif name == "stats":
        await conv.say(stats_text(conv.mapper, session.model))
    elif name == "memory":
        if rest == "refresh":
            await conv.say(session.refresh_context().summary())
        elif rest.startswith("add "):
            path = session.add_memory(rest[4:].strip())
            await conv.say(f"Saved to {path}.")
        else:
            await conv.say(session.context_files.summary())
    elif name == "skills":
        from gemtui.agent.skill_command import skills_command

        await conv.say(skills_command(session, rest)[0])
    elif name == "model":
        if rest:
            await session.switch_model(rest)
        await conv.say(f"Model: {session.model}")
    return True
