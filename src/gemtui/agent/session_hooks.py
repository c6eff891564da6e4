"""The session's hooks (Gemini CLI's ``settings.json`` format), wired to its events.

Loaded once per session, the workspace's files only in a trusted folder. ``BeforeTool``
runs inside the scheduler (before policy and approval); ``BeforeAgent`` here, before a
prompt is sent; the observing events (SessionStart, SessionEnd) fire and are shown.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from gemtui.agent.subagent_tool import SubagentTool
from gemtui.bus import (
    AgentFinished,
    ErrorOccurred,
    Event,
    TerminateReason,
    ToolCallState,
    ToolCallStateChanged,
)
from gemtui.hooks import HookRunner, hook_files, load_hooks, project_hook_files

if TYPE_CHECKING:
    from gemtui.agent.session_view import SessionView as Session

__all__ = ["before_agent", "build_hooks", "drain_hooks", "fire_session_start"]

_pending: set[asyncio.Task[None]] = set()


def build_hooks(session: Session) -> HookRunner:
    """The session's hook runner; BeforeTool hooks join its scheduler."""
    root = session.workspace.root
    found = load_hooks(
        hook_files(root, trusted=session.options.trusted_workspace),
        project=project_hook_files(root),
    )
    runner = HookRunner(
        found,
        workspace=root,
        session_id=session.id,
        emit=session.bus.emit,
        sandbox=session.tool_context.sandbox,  # the project's hooks run in it
    )
    if any(h.event in ("BeforeTool", "AfterTool") for h in found.hooks):
        session.scheduler.hooks = runner
    if any(h.event in ("AfterAgent", "Notification", "SubagentStop") for h in found.hooks):
        session.bus.subscribe(lambda event: _observe(runner, event, session))
    return runner


def _spawn(runner: HookRunner, event: str, payload: dict[str, object]) -> None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(runner.advise(event, payload))
    _pending.add(task)
    task.add_done_callback(_pending.discard)


def _observe(runner: HookRunner, event: Event, session: Session) -> None:
    """AfterAgent after each prompt; Notification when a call waits for approval;
    SubagentStop (Claude Code's) when a subagent's call ends."""
    if isinstance(event, AgentFinished):
        _spawn(
            runner,
            "AfterAgent",
            {"prompt_response": event.text, "stop_hook_active": False, "reason": event.reason},
        )
    elif (
        isinstance(event, ToolCallStateChanged)
        and event.call.state.terminal
        and isinstance(session.registry.get(event.call.name), SubagentTool)
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


async def drain_hooks() -> None:
    """Let observing hooks still running finish (each is bounded by its timeout)."""
    if _pending:
        await asyncio.gather(*list(_pending), return_exceptions=True)


def announce_hook_problems(session: Session) -> None:
    for problem in session.hooks.hooks.problems:
        session.bus.emit(ErrorOccurred, message=f"Hook not loaded: {problem}", kind="warning")


def fire_session_start(session: Session, source: str) -> None:
    """SessionStart hooks, in the background (start-up is never blocked)."""
    announce_hook_problems(session)
    if not session.hooks.hooks.for_event("SessionStart"):
        return
    _spawn(session.hooks, "SessionStart", {"source": source})


async def before_agent(session: Session, prompt: str) -> AgentFinished | None:
    """BeforeAgent hooks: a deny ends the prompt unsent; extra context joins it."""
    if not session.hooks.hooks.for_event("BeforeAgent"):
        return None
    blocked, context = await session.hooks.before_agent(prompt)
    if blocked is not None:
        message = f"The prompt was not sent: {blocked}"
        session.bus.emit(ErrorOccurred, message=message, kind="hook")
        return session.bus.emit(
            AgentFinished, reason=TerminateReason.ERROR, text="", error=message, exit_code=1
        )
    if context:
        session.shell_notes.pending.append(context)
    return None
