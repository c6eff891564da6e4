"""What the session's helper modules read of a ``Session``, as a protocol.

``user_commands`` and ``session_hooks`` work on a session, and ``session`` imports them:
typing them against this view instead of ``Session`` keeps every import pointing down.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gemtui.agent.shell_notes import ShellNotes
    from gemtui.bus import EventBus
    from gemtui.commands import CommandSet
    from gemtui.extensions import Extension
    from gemtui.hooks import HookRunner
    from gemtui.scheduler import PolicyEngine
    from gemtui.scheduler.orchestration import ToolScheduler
    from gemtui.tools.base import ToolContext
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.workspace import Workspace

__all__ = ["SessionOptionsView", "SessionView"]


class SessionOptionsView(Protocol):
    """The run options read here."""

    @property
    def trusted_workspace(self) -> bool: ...


class SessionView(Protocol):
    """The parts of a session that commands, shell mode and hooks use."""

    @property
    def id(self) -> str: ...
    @property
    def bus(self) -> EventBus: ...
    @property
    def workspace(self) -> Workspace: ...
    @property
    def options(self) -> SessionOptionsView: ...
    @property
    def registry(self) -> ToolRegistry: ...
    @property
    def policy(self) -> PolicyEngine: ...
    @property
    def approval_mode(self) -> str: ...
    @property
    def scheduler(self) -> ToolScheduler: ...
    @property
    def tool_context(self) -> ToolContext: ...
    @property
    def cancel_event(self) -> asyncio.Event | None: ...
    @property
    def commands(self) -> CommandSet: ...
    @property
    def shell_notes(self) -> ShellNotes: ...
    @property
    def extensions(self) -> list[Extension]: ...
    @property
    def hooks(self) -> HookRunner: ...
