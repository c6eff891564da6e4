"""What a person types that is not a plain prompt: ``/custom:command args`` and ``!shell``.

Both reach the model only through the next request: a custom command becomes the prompt
it expands to; a ``!`` line runs at once (no model call) and its output waits in
``ShellNotes`` until the next prompt, which carries it in Gemini CLI's words ("I ran the
following shell command: …"). Shell lines go through the tool scheduler, so the policy,
the approval, the sandbox and the card are the ones the model's own commands get.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gemtui.agent.shell_notes import ShellNotes
from gemtui.bus import AgentFinished, ErrorOccurred, TerminateReason
from gemtui.commands import CommandError, command_dirs, expand_command, load_commands
from gemtui.commands.session_runner import SchedulerCommandRunner, run_shell_line

if TYPE_CHECKING:
    from gemtui.agent.session_view import SessionView as Session
    from gemtui.commands import CommandSet
    from gemtui.tools.workspace import Workspace

__all__ = [
    "ShellNotes",
    "TerminalRun",
    "add_roots",
    "announce_problems",
    "expand_custom",
    "load_session_commands",
    "run_shell_mode",
    "terminal_command",
    "terminal_verdict",
]


def load_session_commands(session: Session) -> CommandSet:
    """The commands this session offers (the workspace's only in a trusted folder)."""
    extension_dirs = [(f"extension {e.name}", e.commands_dir) for e in session.extensions]
    return load_commands(
        extension_dirs
        + command_dirs(session.workspace.root, trusted=session.options.trusted_workspace)
    )


def announce_problems(session: Session, found: CommandSet) -> None:
    """Each command file that did not load, as a warning naming it (never a crash)."""
    for problem in found.problems:
        session.bus.emit(
            ErrorOccurred,
            message=f"Custom command not loaded: {problem}",
            kind="warning",
            hint="Fix the file, then /commands reload.",
        )


async def expand_custom(session: Session, prompt: str) -> tuple[str, str] | AgentFinished | None:
    """``(expanded prompt, what it came from)`` for a custom command line, None for any
    other prompt, or the finished (failed) prompt when expansion was refused."""
    name, _, args = prompt.strip().partition(" ")
    command = session.commands.find(name)
    if command is None:
        return None
    runner = SchedulerCommandRunner(
        command.name, session.scheduler, session.tool_context, session.cancel_event
    )
    try:
        text = await expand_command(command, args.strip(), runner)
    except CommandError as exc:
        message = f"/{command.name} was not sent: {exc}"
        session.bus.emit(ErrorOccurred, message=message, kind="command")
        return session.bus.emit(
            AgentFinished, reason=TerminateReason.ERROR, text="", error=message, exit_code=1
        )
    return text, f"/{command.name} ({command.path})"


async def run_shell_mode(session: Session, line: str) -> bool:
    """``!line``: run it now, no model call; True when it ran (its output is noted)."""
    try:
        output, code = await run_shell_line(
            session.scheduler, line, "shell mode (!)", session.cancel_event
        )
    except CommandError as exc:
        session.bus.emit(ErrorOccurred, message=str(exc), kind="warning")
        return False
    session.shell_notes.add(line, output, code)
    return True


async def terminal_verdict(session: Session, line: str) -> tuple[str, str, str]:
    """What the BeforeTool hooks and the policy say of running ``line`` with the terminal
    handed over: ``("allow" | "ask_user" | "deny", why, the line to run)`` (a hook may
    rewrite it). Nothing runs here."""
    tool = session.registry.get("run_shell_command")
    if tool is None:
        return "deny", "run_shell_command is excluded in the settings ([tools] exclude).", line
    ask = ""
    if session.scheduler.hooks is not None:
        hooked = await session.scheduler.hooks.before_tool(
            "shell-mode", "run_shell_command", {"command": line}
        )
        if hooked.blocked:
            return "deny", hooked.reason or "blocked by a BeforeTool hook", line
        new = (hooked.tool_input or {}).get("command")
        line = new if isinstance(new, str) and new.strip() else line
        ask = hooked.reason if hooked.ask else ""
    verdict = session.policy.decide(tool, {"command": line}, session.approval_mode)
    decision = str(verdict.decision)
    if ask and decision == "allow":
        return "ask_user", ask, line
    return decision, verdict.reason, line


@dataclass(frozen=True)
class TerminalRun:
    """How a ``!`` program that is handed the terminal runs."""

    argv: list[str]
    env: dict[str, str] | None
    """None: gemtui's own environment (no sandbox)."""
    where: str = ""
    """Where it ran, for the notice (empty without a sandbox)."""
    release: Callable[[], None] = lambda: None
    """Call once the program ended: the sandbox's placeholders go then."""


def terminal_command(session: Session, line: str) -> TerminalRun:
    """The command line of a ``!`` program that is handed the terminal.

    Under ``-s`` it runs in the same bubblewrap sandbox as every other command, with the
    same scrubbed environment: a person's ``!vim`` is a command the project may have
    shaped (its ``.vimrc``, its git hooks' editor). ``bwrap --new-session`` keeps the
    person's terminal from being its controlling one (no TIOCSTI into their shell), so
    ``script`` gives it a terminal of its own inside the sandbox, relayed to the real
    one: Ctrl+C, ``/dev/tty`` and the window size work as outside. Without ``script``
    the real terminal is only its input and output (no ``/dev/tty``; Ctrl+C ends it).
    Raises ``FatalConfigError`` when bwrap is missing.
    """
    from gemtui.tools.sandbox import require_bwrap, scrubbed_env, wrap_command

    sandbox = session.tool_context.sandbox
    if sandbox is None:
        return TerminalRun(["bash", "-c", line], None)
    bwrap, env = require_bwrap(), scrubbed_env()
    relay = shutil.which("script")
    if relay is None:
        boxed = wrap_command(["bash", "-c", line], sandbox, bwrap)
        where = "in the sandbox: workspace only, no /dev/tty"
        return TerminalRun(boxed.argv, env, where, boxed.release)
    shell = env.get("SHELL")
    restore = f"SHELL={shlex.quote(shell)}" if shell else "-u SHELL"
    inner = f"exec env {restore} bash -c {shlex.quote(line)}"
    env["SHELL"] = "/bin/sh"  # what script runs ``inner`` with, whatever the person's is
    boxed = wrap_command([relay, "-qec", inner, "/dev/null"], sandbox, bwrap)
    return TerminalRun(boxed.argv, env, "in the sandbox: workspace only", boxed.release)


def add_roots(workspace: Workspace, folders: Iterable[str]) -> list[Path]:
    """Add each folder (comma-separated lists too; relative to the main root, ``~``
    expanded) as a workspace root; a missing one is an input error (exit 42)."""
    from gemtui.errors import FatalInputError
    from gemtui.tools.base import ToolError

    added = []
    for item in folders:
        for raw in (part.strip() for part in item.split(",")):
            if not raw:
                continue
            path = Path(os.path.expanduser(raw))
            try:
                added.append(
                    workspace.add_root(path if path.is_absolute() else workspace.root / path)
                )
            except ToolError as exc:
                raise FatalInputError(f"--include-directories: {exc}") from exc
    return added
