"""What a typed prompt becomes before the turn loop runs it.

A ``BeforeAgent`` hook may refuse it; images an editor attached follow its text; a
``/command`` of the person's own expands into the prompt; ``@agent-name task`` delegates;
``@path`` attaches files. Kept apart from :class:`~gemtui.agent.session.Session`, which
only guards the prompt (groundwork, cancel) and hands it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemtui.agent import session_hooks, user_commands
from gemtui.bus import AgentFinished
from gemtui.wire import Part

if TYPE_CHECKING:
    import asyncio

    from gemtui.agent.session import Session

__all__ = ["route_prompt"]


async def route_prompt(
    session: Session, prompt: str, media: list[Part] | None, cancel: asyncio.Event
) -> AgentFinished:
    """Run ``prompt`` (with ``media``) through the hooks and expansions, then the turn loop."""
    notes, executor = session.shell_notes, session.executor
    refused = await session_hooks.before_agent(
        session.hooks, session.bus, notes, prompt, session.chat
    )
    if refused is not None:
        return refused
    if media:
        message = [Part(text=prompt), *media]
        return await executor.run(message, cancel=cancel, attached=f"{len(media)} attachment(s)")
    expanded = None
    if prompt.startswith("/"):  # a custom command's expansion is the prompt
        expanded = await user_commands.expand_custom(
            session.commands, session.scheduler, session.tool_context, session.bus, prompt, cancel
        )
    if isinstance(expanded, AgentFinished):
        return expanded
    if expanded is not None:
        return await executor.run(notes.attach(expanded[0]), cancel=cancel, attached=expanded[1])
    prompt = session.agents.delegation(prompt) or prompt  # "@agent-name task"
    if "@" in prompt:  # @path attaches files (read before the prompt is announced)
        from gemtui.agent.at_paths import attach_files

        found = await attach_files(prompt, session.tool_context)
        if found.parts or found.notes:
            attached = notes.attach(found.parts or prompt)
            return await executor.run(attached, cancel=cancel, attached=found.summary())
    return await executor.run(notes.attach(prompt), cancel=cancel)
