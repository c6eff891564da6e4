"""The session's hooks (Gemini CLI's ``settings.json`` format), wired to its events.

Loaded once per session, the workspace's files only in a trusted folder. ``BeforeTool``
runs inside the scheduler (before policy and approval); ``BeforeAgent`` here, before a
prompt is sent; ``AfterAgent`` in the executor (it may send the agent back); SessionStart
starts with the session and the first prompt waits for it (its ``additionalContext`` goes
with that prompt); the observing events (Notification, SubagentStop, SessionEnd) fire and
are shown.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from gemtui.agent.subagent_tool import SubagentTool
from gemtui.bus import (
    AgentFinished,
    ErrorOccurred,
    Event,
    TerminateReason,
    ToolCallState,
    ToolCallStateChanged,
    UserMessage,
)
from gemtui.hooks import HookRunner, hook_files, load_hooks, project_hook_files
from gemtui.mcp.tool import McpTool
from gemtui.wire import Content

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine
    from pathlib import Path

    from gemtui.agent.shell_notes import ShellNotes
    from gemtui.bus import EventBus
    from gemtui.chat.chat import Chat
    from gemtui.tools.base import Tool
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.sandbox import SandboxConfig

__all__ = ["before_agent", "build_hooks", "drain_hooks", "fire_session_start", "tool_hooks"]


def build_hooks(
    root: Path,
    bus: EventBus,
    sandbox: SandboxConfig | None,
    *,
    trusted: bool,
    registry: ToolRegistry,
) -> HookRunner:
    """The hook runner of a session in ``root``, watching ``bus`` for the observing
    events; hand it to the scheduler when ``tool_hooks`` says it has BeforeTool hooks.
    ``registry`` tells a subagent (SubagentStop) and an MCP tool (``mcp_context``)."""
    found = load_hooks(hook_files(root, trusted=trusted), project=project_hook_files(root))
    runner = HookRunner(
        found,
        workspace=root,
        session_id=bus.session_id,
        emit=bus.emit,
        sandbox=sandbox,  # the project's hooks run in it
    )
    runner.mcp_context = lambda name: _mcp_context(registry.get(name))

    def is_subagent(name: str) -> bool:
        return isinstance(registry.get(name), SubagentTool)

    if any(h.event in ("Notification", "SubagentStop") for h in found.hooks):
        bus.subscribe(lambda event: _observe(runner, event, is_subagent))
    return runner


def _mcp_context(tool: Tool | None) -> dict[str, Any] | None:
    """Gemini CLI's ``mcp_context`` for an MCP server's tool: the server, the tool's own
    name and how the server is reached; None for any other tool."""
    if not isinstance(tool, McpTool):
        return None
    server = tool.server or ""
    context: dict[str, Any] = {"server_name": server, "tool_name": tool.remote_name}
    conf = tool.manager.settings_of(server)
    if conf is not None and conf.command:
        context.update(command=conf.command, args=list(conf.args), cwd=conf.cwd)
    elif conf is not None and conf.url:
        context["url"] = conf.url
    return context


def tool_hooks(runner: HookRunner) -> HookRunner | None:
    """The runner when it has hooks around tool calls (the scheduler asks them), else None."""
    around = any(h.event in ("BeforeTool", "AfterTool") for h in runner.hooks.hooks)
    return runner if around else None


def _spawn(runner: HookRunner, event: str, payload: dict[str, object]) -> None:
    _start(runner, runner.advise(event, payload))


def _start(runner: HookRunner, work: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """``work`` in the background, drained when the session closes (None without a loop)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        work.close()
        return None
    task = loop.create_task(work)
    runner.observing.add(task)
    task.add_done_callback(runner.observing.discard)
    return task


def _observe(runner: HookRunner, event: Event, is_subagent: Callable[[str], bool]) -> None:
    """Notification when a call waits for approval; SubagentStop (Claude Code's) when a
    subagent's call ends."""
    if (
        isinstance(event, ToolCallStateChanged)
        and event.call.state.terminal
        and is_subagent(event.call.name)
    ):
        _spawn(runner, "SubagentStop", {"stop_hook_active": False, "agent": event.call.name})
    elif (
        isinstance(event, ToolCallStateChanged)
        and event.call.state == ToolCallState.AWAITING_APPROVAL
    ):
        call = event.call
        _spawn(
            runner,
            "Notification",
            {
                "notification_type": "ToolPermission",
                "message": f"{call.name} needs your approval",
                "details": {"tool_name": call.name, "tool_input": call.args},
            },
        )


async def drain_hooks(runner: HookRunner) -> None:
    """Let the session's observing hooks still running finish (each is bounded by its
    timeout)."""
    if runner.observing:
        await asyncio.gather(*list(runner.observing), return_exceptions=True)


def announce_hook_problems(hooks: HookRunner, bus: EventBus) -> None:
    for problem in hooks.hooks.problems:
        bus.emit(ErrorOccurred, message=f"Hook not loaded: {problem}", kind="warning")


def fire_session_start(
    hooks: HookRunner, bus: EventBus, notes: ShellNotes, *, resumed: bool
) -> None:
    """SessionStart hooks, in the background (start-up is never blocked); the context they
    answer joins ``notes``, which the first prompt carries."""
    announce_hook_problems(hooks, bus)
    if hooks.hooks.for_event("SessionStart"):
        source = "resume" if resumed else "startup"
        hooks.session_start = _start(hooks, _session_start(hooks, source, notes))


async def _session_start(hooks: HookRunner, source: str, notes: ShellNotes) -> None:
    for answer in await hooks.run("SessionStart", {"source": source}):
        extra = answer.specific.get("additionalContext")
        if isinstance(extra, str) and extra.strip():
            notes.pending.append(extra.strip())


async def before_agent(
    hooks: HookRunner, bus: EventBus, notes: ShellNotes, prompt: str, chat: Chat
) -> AgentFinished | None:
    """BeforeAgent hooks: a deny ends the prompt unsent (and forgotten); ``continue:
    false`` ends it unsent but kept in ``chat``'s history; extra context joins ``notes``
    (after SessionStart's, which the first prompt waits for)."""
    starting, hooks.session_start = hooks.session_start, None
    if starting is not None:
        await asyncio.wait({starting})  # bounded by each hook's timeout
    if not hooks.hooks.for_event("BeforeAgent"):
        return None
    hooks.stopped = None
    blocked, context = await hooks.before_agent(prompt)
    if blocked is not None and hooks.stopped:  # continue: false keeps the prompt, as done
        bus.emit(UserMessage, text=prompt)  # shown and saved like any prompt
        chat.add_tool_responses(Content.user(prompt))  # a plain append to the history
        return bus.emit(AgentFinished, reason=TerminateReason.GOAL, text="")
    if blocked is not None:
        message = f"The prompt was not sent: {blocked}"
        bus.emit(ErrorOccurred, message=message, kind="hook")
        return bus.emit(
            AgentFinished, reason=TerminateReason.ERROR, text="", error=message, exit_code=1
        )
    if context:
        notes.pending.append(context)
    return None
