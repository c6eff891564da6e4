"""The session's side of a custom command: shell lines through the scheduler, files
through the workspace's bounds and ignore files."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from gemtui.bus.events import ToolCallState
from gemtui.commands.template import CommandError, exit_code_of
from gemtui.tools.base import ToolContext, ToolError
from gemtui.wire import FunctionCall

if TYPE_CHECKING:
    from gemtui.scheduler.orchestration import ToolScheduler

__all__ = ["SchedulerCommandRunner", "run_shell_line"]


async def run_shell_line(
    scheduler: ToolScheduler,
    line: str,
    description: str,
    cancel: asyncio.Event | None,
    *,
    shown: str | None = None,
) -> tuple[str, int | None]:
    """Run one shell line as a ``run_shell_command`` call: the policy decides, the person
    approves when asked, the card shows it. Raises ``CommandError`` unless it ran; its
    message names the line as the person wrote it (``shown``: ``!pwd``; else ``!{pwd}``,
    a custom command's syntax)."""
    shown = shown or f"!{{{line}}}"
    call = FunctionCall(
        name="run_shell_command", args={"command": line, "description": description}
    )
    result = await scheduler.run([call], cancel=cancel)
    snap = result.snapshots[0]
    if result.cancelled or snap.state == ToolCallState.CANCELLED:
        raise CommandError(f"{shown} was cancelled")
    if snap.state != ToolCallState.SUCCESS:
        raise CommandError(f"{shown} was not run: {snap.error or snap.state}")
    answer = next(
        (
            p.function_response.response.get("output", "")
            for p in result.parts
            if p.function_response is not None
        ),
        "",
    )
    return snap.output or "", exit_code_of(str(answer))


class SchedulerCommandRunner:
    """A ``CommandRunner`` for one expansion of ``/name``."""

    def __init__(
        self,
        name: str,
        scheduler: ToolScheduler,
        context: ToolContext,
        cancel: asyncio.Event | None,
    ) -> None:
        self.name = name
        self.scheduler = scheduler
        self.context = context
        self.cancel = cancel

    async def run_shell(self, line: str) -> tuple[str, int | None]:
        return await run_shell_line(self.scheduler, line, f"for /{self.name}'s prompt", self.cancel)

    async def read_path(self, path: str) -> str:
        from gemtui.tools.builtin.read_many_files import ReadManyFilesTool

        ws = self.context.workspace
        try:
            real = ws.resolve_visible(path)
            if not real.exists():
                raise ToolError("no such file or folder in the workspace")
            spec = ws.relative(real) + ("/" if real.is_dir() else "")
            result = await ReadManyFilesTool().build({"include": [spec]}).execute(self.context)
        except ToolError as exc:
            raise CommandError(f"@{{{path}}}: {exc}") from exc
        except OSError as exc:
            raise CommandError(f"@{{{path}}}: {exc.strerror or exc}") from exc
        content = result.llm_content
        if isinstance(content, str):
            return content
        return "\n".join(p.text for p in content if p.text is not None)
