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
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from gemtui.agent.reload_hint import reload_hint
from gemtui.agent.shell_notes import ShellNotes
from gemtui.bus import AgentFinished, ErrorOccurred, TerminateReason
from gemtui.bus.events import ToolCallState, ToolCallStateChanged
from gemtui.bus.values import ApprovalDecision, Decision
from gemtui.commands import CommandError, command_dirs, expand_command, load_commands
from gemtui.commands.session_runner import SchedulerCommandRunner, run_shell_line
from gemtui.tools.shell_read_only import typed_read_only

if TYPE_CHECKING:
    import asyncio

    from gemtui.bus import EventBus
    from gemtui.commands import CommandSet
    from gemtui.extensions import Extension
    from gemtui.scheduler import PolicyEngine
    from gemtui.scheduler.orchestration import ToolScheduler
    from gemtui.scheduler.tool_hooks import ToolHooks
    from gemtui.tools.base import ToolContext
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.sandbox import SandboxConfig
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
    "typed_line_asks",
]


def load_session_commands(
    extensions: Iterable[Extension], root: Path, *, trusted: bool
) -> CommandSet:
    """The commands a session in ``root`` offers (the workspace's only in a trusted folder)."""
    extension_dirs = [(f"extension {e.name}", e.commands_dir) for e in extensions]
    return load_commands(extension_dirs + command_dirs(root, trusted=trusted))


def announce_problems(bus: EventBus, found: CommandSet, *, interactive: bool = True) -> None:
    """Each command file that did not load, as a warning naming it (never a crash); the
    hint names what works where it is read (``/commands reload`` exists only in the TUI)."""
    hint = reload_hint("commands", interactive=interactive)
    for problem in found.problems:
        bus.emit(
            ErrorOccurred,
            message=f"Custom command not loaded: {problem}",
            kind="warning",
            hint=hint,
        )


async def expand_custom(
    commands: CommandSet,
    scheduler: ToolScheduler,
    context: ToolContext,
    bus: EventBus,
    prompt: str,
    cancel: asyncio.Event | None,
) -> tuple[str, str] | AgentFinished | None:
    """``(expanded prompt, what it came from)`` for a custom command line, None for any
    other prompt, or the finished (failed) prompt when expansion was refused."""
    name, _, args = prompt.strip().partition(" ")
    command = commands.find(name)
    if command is None:
        return None
    runner = SchedulerCommandRunner(command.name, scheduler, context, cancel)
    try:
        text = await expand_command(command, args.strip(), runner)
    except CommandError as exc:
        message = f"/{command.name} was not sent: {exc}"
        bus.emit(ErrorOccurred, message=message, kind="command")
        return bus.emit(
            AgentFinished, reason=TerminateReason.ERROR, text="", error=message, exit_code=1
        )
    return text, f"/{command.name} ({command.path})"


async def run_shell_mode(
    scheduler: ToolScheduler,
    bus: EventBus,
    notes: ShellNotes,
    line: str,
    cancel: asyncio.Event | None,
) -> bool:
    """``!line``: run it now, no model call; True when it ran (its output is noted).

    When the person allowed read-only commands they type (``notes.typed_read_only``) and
    ``line`` is one (``typed_read_only``), its approval is answered at once: only this
    call's, the one with this very command, while no model turn runs.
    """
    unsubscribe = (
        _answer_for_the_person(bus, line)
        if notes.typed_read_only and typed_read_only(line)
        else None
    )
    try:
        output, code = await run_shell_line(
            scheduler, line, SHELL_MODE_DESCRIPTION, cancel, shown=f"!{line}"
        )
    except CommandError as exc:
        bus.emit(ErrorOccurred, message=str(exc), kind="warning")
        return False
    finally:
        if unsubscribe is not None:
            unsubscribe()
    notes.add(line, output, code)
    return True


SHELL_MODE_DESCRIPTION = "shell mode (!)"
"""The words ``store.titles.SHELL_MODE`` titles a session by (a test keeps them one);
not imported from there: the TUI's build must not load the store before the handover."""


def _answer_for_the_person(bus: EventBus, line: str) -> Callable[[], None]:
    """Allow once the approval of the ``!`` call running ``line``; returns the unsubscribe."""

    def seen(event: object) -> None:
        if not isinstance(event, ToolCallStateChanged):
            return
        call = event.call
        if (
            call.state == ToolCallState.AWAITING_APPROVAL
            and call.correlation_id
            and call.args.get("command") == line
            and call.args.get("description") == SHELL_MODE_DESCRIPTION
        ):
            bus.decide(call.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE))

    return bus.subscribe(seen)


def typed_line_asks(
    registry: ToolRegistry, policy: PolicyEngine, approval_mode: str, line: str
) -> bool:
    """Whether the policy would ask before ``line``, typed after ``!``, runs."""
    tool = registry.get("run_shell_command")
    if tool is None:
        return False
    verdict = policy.decide(tool, {"command": line}, approval_mode)
    return str(verdict.decision) == "ask_user"


async def terminal_verdict(
    registry: ToolRegistry,
    policy: PolicyEngine,
    hooks: ToolHooks | None,
    approval_mode: str,
    line: str,
) -> tuple[str, str, str]:
    """What the BeforeTool hooks and the policy say of running ``line`` with the terminal
    handed over: ``("allow" | "ask_user" | "deny", why, the line to run)`` (a hook may
    rewrite it). Nothing runs here."""
    tool = registry.get("run_shell_command")
    if tool is None:
        return "deny", "run_shell_command is excluded in the settings ([tools] exclude).", line
    ask = ""
    if hooks is not None:
        hooked = await hooks.before_tool("shell-mode", "run_shell_command", {"command": line})
        if hooked.blocked:
            return "deny", hooked.reason or "blocked by a BeforeTool hook", line
        new = (hooked.tool_input or {}).get("command")
        line = new if isinstance(new, str) and new.strip() else line
        ask = hooked.reason if hooked.ask else ""
    verdict = policy.decide(tool, {"command": line}, approval_mode)
    decision = str(verdict.decision)
    if ask and decision == "allow":
        return "ask_user", ask, line
    return decision, verdict.reason, line


class TerminalRun(Struct, frozen=True):
    """How a ``!`` program that is handed the terminal runs."""

    argv: list[str]
    env: dict[str, str] | None
    """None: gemtui's own environment (no sandbox)."""
    where: str = ""
    """Where it ran, for the notice (empty without a sandbox)."""
    release: Callable[[], None] = lambda: None
    """Call once the program ended: the sandbox's placeholders go then."""


def terminal_command(sandbox: SandboxConfig | None, line: str) -> TerminalRun:
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
