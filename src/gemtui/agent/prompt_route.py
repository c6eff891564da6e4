"""What a typed prompt becomes before the turn loop runs it.

A ``BeforeAgent`` hook may refuse it; images an editor attached follow its text; a
``/command`` of the person's own expands into the prompt; ``@agent-name task`` delegates;
``@path`` attaches files. Kept apart from :class:`~gemtui.agent.session.Session`, which
only guards the prompt (groundwork, cancel) and hands it here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct

from gemtui.agent import session_hooks, user_commands
from gemtui.bus import AgentFinished
from gemtui.wire import Part

if TYPE_CHECKING:
    import asyncio

    from gemtui.agent.executor import Executor
    from gemtui.agent.shell_notes import ShellNotes
    from gemtui.agent.subagents import Subagents
    from gemtui.bus import EventBus
    from gemtui.chat.chat import Chat
    from gemtui.commands import CommandSet
    from gemtui.hooks import HookRunner
    from gemtui.scheduler import ToolScheduler
    from gemtui.tools.base import ToolContext

__all__ = ["PromptRoute"]


class PromptRoute(Struct, frozen=True):
    """A session's collaborators a prompt passes through on its way to the turn loop."""

    hooks: HookRunner
    bus: EventBus
    notes: ShellNotes
    chat: Chat
    executor: Executor
    scheduler: ToolScheduler
    tool_context: ToolContext
    agents: Subagents
    commands: Callable[[], CommandSet]
    """The custom commands now (``/commands reload`` replaces them)."""

    async def run(
        self, prompt: str, media: list[Part] | None, cancel: asyncio.Event
    ) -> AgentFinished:
        """Run ``prompt`` (with ``media``) through the hooks and expansions, then the loop."""
        notes, executor = self.notes, self.executor
        refused = await session_hooks.before_agent(self.hooks, self.bus, notes, prompt, self.chat)
        if refused is not None:
            return refused
        if media:
            message = [Part(text=prompt), *media]
            attached = f"{len(media)} attachment(s)"
            return await executor.run(message, cancel=cancel, attached=attached)
        expanded = None
        if prompt.startswith("/"):  # a custom command's expansion is the prompt
            expanded = await user_commands.expand_custom(
                self.commands(), self.scheduler, self.tool_context, self.bus, prompt, cancel
            )
        if isinstance(expanded, AgentFinished):
            return expanded
        if expanded is not None:
            text = notes.attach(expanded[0])
            return await executor.run(text, cancel=cancel, attached=expanded[1])
        prompt = self.agents.delegation(prompt) or prompt  # "@agent-name task"
        if "@" in prompt:  # @path attaches files (read before the prompt is announced)
            from gemtui.agent.at_paths import attach_files

            found = await attach_files(prompt, self.tool_context)
            if found.parts or found.notes:
                files = notes.attach(found.parts or prompt)
                return await executor.run(files, cancel=cancel, attached=found.summary())
        return await executor.run(notes.attach(prompt), cancel=cancel)
