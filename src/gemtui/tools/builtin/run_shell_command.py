"""run_shell_command: ``bash -c`` in its own process group, killed whole on timeout/cancel.

The command leads a new session (``start_new_session=True``), so its process group id is
its pid and ``killpg`` reaches every child it started — a background ``sleep`` included.
Cancellation of the running task terminates the group (SIGTERM, then SIGKILL after a
short grace) before CancelledError propagates, so nothing is left behind.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace
from pydantic import Field, field_validator

from gemtui.config.paths import data_dir
from gemtui.errors import FatalConfigError
from gemtui.redact import redact
from gemtui.tools.background import BackgroundLog, log_name, remove_stale_logs, terminate_all
from gemtui.tools.background import group_members as _group_members
from gemtui.tools.base import (
    Confirmation,
    ToolContext,
    ToolError,
    ToolInvocation,
    ToolKind,
    ToolResult,
    TypedInvocation,
    TypedTool,
)
from gemtui.tools.params import ToolParams
from gemtui.tools.sandbox import (
    SandboxedCommand,
    require_bwrap,
    sandbox_hint,
    scrubbed_env,
    wrap_command,
)
from gemtui.tools.sandbox_throwaway import throwaway_note
from gemtui.tools.saved_output import OutputStore, SpillFile, joined, split_limit
from gemtui.tools.shell_rules import rule_prefixes
from gemtui.tools.shell_syntax import has_redirection

if TYPE_CHECKING:
    from gemtui.tools.terminal_access import TerminalAccess

log = logging.getLogger(__name__)

KILL_GRACE_SECONDS = 2.0
"""How long a group gets to exit after SIGTERM before SIGKILL."""
DRAIN_SECONDS = 0.5
"""How long to keep reading after bash exits (background children may hold the pipe)."""
READ_CHUNK = 8192


# -- process group handling --------------------------------------------------------------


def _launch(argv: list[str], ctx: ToolContext) -> tuple[SandboxedCommand, dict[str, str] | None]:
    """The command line and environment: under bubblewrap when the session is sandboxed
    (release the command once it ended: its placeholders go then)."""
    if ctx.sandbox is None:
        return SandboxedCommand(argv, []), None
    try:
        bwrap = require_bwrap()
    except FatalConfigError as e:
        raise ToolError(str(e)) from e
    config = ctx.sandbox
    if ctx.workspace.readable:  # an activated skill's folder: its scripts run, read-only
        shown = tuple(str(r.root) for r in ctx.workspace.readable)
        config = replace(config, read_only_paths=(*config.read_only_paths, *shown))
    return wrap_command(argv, config, bwrap), scrubbed_env()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def terminate_group(proc: asyncio.subprocess.Process, grace: float | None = None) -> None:
    """SIGTERM the whole group, wait up to ``grace`` for it to empty, then SIGKILL."""
    if grace is None:
        grace = KILL_GRACE_SECONDS
    pgid = proc.pid
    _signal_group(pgid, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    try:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)
        # group membership has no event to wait on: poll /proc until empty or late
        while _group_members(pgid) and loop.time() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.02)
    finally:
        if proc.returncode is None or _group_members(pgid):
            _signal_group(pgid, signal.SIGKILL)
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(proc.wait(), grace)


def terminate_background_processes() -> None:
    """End the groups of every session's background commands (sessions do it on close)."""
    terminate_all()


# -- output capture ----------------------------------------------------------------------


class OutputCapture:
    """Keeps the head and tail of a stream within ``limit`` characters; past the limit
    the whole stream goes on into a file (``spill``) that the preview names."""

    def __init__(self, limit: int, spill: Callable[[], SpillFile] | None = None) -> None:
        self.limit = max(limit, 0)
        self.head_cap, self.tail_cap = split_limit(self.limit)
        self.head = ""
        self.tail = ""
        self.total = 0
        self._open_spill = spill
        self.spill: SpillFile | None = None

    def add(self, text: str) -> None:
        self.total += len(text)
        if self.spill is not None:
            self.spill.write(text)
        elif self.total > self.limit and self._open_spill is not None:
            self._start_spill(text)
        if len(self.head) < self.head_cap:
            take = self.head_cap - len(self.head)
            self.head += text[:take]
            text = text[take:]
        if text:
            self.tail += text
            if len(self.tail) > 2 * self.tail_cap + READ_CHUNK:
                self.tail = self.tail[-self.tail_cap :] if self.tail_cap else ""

    def _start_spill(self, text: str) -> None:
        """Everything so far is still held (the tail is trimmed only past the limit)."""
        assert self._open_spill is not None
        try:
            self.spill = self._open_spill()
        except OSError:
            log.warning("could not save the whole command output", exc_info=True)
            self._open_spill = None
            return
        self.spill.write(self.head + self.tail + text)

    def close(self) -> None:
        if self.spill is not None:
            self.spill.close()

    def text(self) -> str:
        if self.total <= self.limit:
            return self.head + self.tail
        tail = self.tail[-self.tail_cap :] if self.tail_cap else ""
        path = self.spill.path if self.spill is not None else None
        return joined(redact(self.head), redact(tail), self.total, path, self.limit)


def _add_note(result: ToolResult, note: str | None) -> None:
    """One more line for the model and the card (the sandbox explaining itself)."""
    if note is not None and isinstance(result.llm_content, str):
        result.llm_content += "\n" + note
        result.display += "\n" + note


# -- the tool ----------------------------------------------------------------------------


class RunShellCommandParams(ToolParams):
    """run_shell_command's arguments, as Gemini CLI declares them."""

    command: str = Field(description="Exact bash command to execute as `bash -c <command>`")
    description: str | None = Field(
        default=None,
        description="Brief description of the command for the user. Be specific and "
        "concise. Ideally a single sentence. Can be up to 3 sentences for clarity. No "
        "line breaks.",
    )
    dir_path: str | None = Field(
        default=None,
        description="(OPTIONAL) The path of the directory to run the command in. If "
        "not provided, the project root directory is used. Must be a directory within "
        "the workspace and must already exist.",
    )
    is_background: bool | None = Field(
        default=None,
        description="Set to true if this command should be run in the background "
        "(e.g. for long-running servers or watchers). The command is started and its "
        "PID returned at once; its output goes to a log file.",
    )

    @field_validator("command")
    @classmethod
    def _command(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("Command cannot be empty.")
        return value


class RunShellCommandInvocation(TypedInvocation[RunShellCommandParams]):
    """One validated shell command: what runs, where, foreground or background."""

    @property
    def command(self) -> str:
        """The command that runs: the model's, or a person's edited version."""
        return self.params.command

    def describe(self) -> str:
        desc = self.params.description
        return f"{self.command}" + (f" ({desc})" if desc else "")

    def _cwd(self, ctx: ToolContext) -> Path:
        dir_arg = self.params.dir_path or "."
        cwd = ctx.workspace.resolve(dir_arg)
        if not cwd.is_dir():
            raise ToolError(f"Directory does not exist or is not a directory: {dir_arg}")
        return cwd

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        cwd = self._cwd(ctx)
        return Confirmation(
            kind="exec",
            title="Confirm Shell Command"
            + ("" if ctx.sandbox is None else " (sandboxed: bubblewrap, workspace only)"),
            command=self.command,
            root_command=", ".join(rule_prefixes(self.command)) or None,
            cwd=str(cwd),
            has_redirection=has_redirection(self.command),
        )

    def modify(self, proposed: str) -> None:
        """A person's edited command replaces the model's."""
        if not proposed.strip():
            raise ToolError("The command cannot be empty.")
        self.params = self.params.model_copy(update={"command": proposed})
        self.args = {**self.args, "command": proposed}

    async def execute(self, ctx: ToolContext) -> ToolResult:
        cwd = self._cwd(ctx)
        where = ctx.workspace.relative(cwd)
        if self.params.is_background:
            return self._start_background(cwd, where, ctx)
        if ctx.terminals is not None and ctx.sandbox is None:  # a sandbox never hands out
            return await self._run_in_terminal(ctx.terminals, cwd, where, ctx)
        launched, env = _launch(["bash", "-c", self.command], ctx)
        with launched:  # the sandbox's placeholders go once the command has ended
            return await self._run_piped(launched.argv, env, cwd, where, ctx)

    async def _run_piped(
        self, argv: list[str], env: dict[str, str] | None, cwd: Path, where: str, ctx: ToolContext
    ) -> ToolResult:
        """Run ``argv`` with its output on our pipe until it exits (or times out)."""
        # Our own pipe (not asyncio's PIPE): wait() then means "bash exited" on every
        # Python version, and we decide when to stop reading a pipe that background
        # children may still hold open.
        rfd, wfd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                env=env,
                cwd=os.fspath(cwd),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=wfd,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            os.close(rfd)
            raise ToolError(f"Failed to start command: {exc}") from exc
        finally:
            os.close(wfd)
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=READ_CHUNK * 4)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(rfd, "rb", buffering=0)
        )
        outputs = ctx.outputs
        spill = None if outputs is None else (lambda: outputs.create(ctx.call_id or "shell"))
        capture = OutputCapture(ctx.output_limit, spill)
        reader = asyncio.create_task(self._pump(stream, capture, ctx))
        timed_out = False
        try:
            try:
                await asyncio.wait_for(proc.wait(), ctx.shell_timeout)
            except TimeoutError:
                timed_out = True
                await terminate_group(proc)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), DRAIN_SECONDS)
        except asyncio.CancelledError:
            await terminate_group(proc)
            raise
        finally:
            if not reader.done():
                reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            transport.close()
            capture.close()
        if not timed_out:
            ctx.background.adopt(proc.pid)  # `server &`: the job is the session's too
        result = self._result(proc, capture, where, timed_out, ctx.shell_timeout)
        if ctx.sandbox is not None:
            hint = sandbox_hint(capture.text(), network=ctx.sandbox.network)
            _add_note(result, hint)
            _add_note(result, throwaway_note(self.command, ctx.sandbox))
        return result

    async def _run_in_terminal(
        self, terminals: TerminalAccess, cwd: Path, where: str, ctx: ToolContext
    ) -> ToolResult:
        """The front end's terminal runs it; the model gets the same report as here."""
        run = await terminals.run(
            self.command,
            cwd,
            seconds=ctx.shell_timeout,
            output_limit=ctx.output_limit,
            call_id=ctx.call_id or None,
        )
        output = run.output
        lines = [
            f"Command: {self.command}",
            f"Directory: {'(root)' if where == '.' else where}",
            f"Output: {output.rstrip() if output.strip() else '(empty)'}",
            f"Signal: {run.signal}" if run.signal else f"Exit Code: {run.exit_code}",
        ]
        text = "\n".join(lines)
        data = {"exit_code": run.exit_code, "timed_out": run.timed_out, "terminal": True}
        if run.timed_out:
            error = f"Command timed out after {ctx.shell_timeout:g} seconds; it was killed.\n"
            return ToolResult(
                llm_content=error + text, display=output, error=error + text, data=data
            )
        return ToolResult(llm_content=text, display=output, data=data)

    @staticmethod
    async def _pump(stream: asyncio.StreamReader, capture: OutputCapture, ctx: ToolContext) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            chunk = await stream.read(READ_CHUNK)
            text = decoder.decode(chunk, final=not chunk)
            if text:
                capture.add(text)
                if ctx.on_output is not None:
                    ctx.on_output(text)
            if not chunk:
                return

    def _result(
        self,
        proc: asyncio.subprocess.Process,
        capture: OutputCapture,
        where: str,
        timed_out: bool,
        timeout: float,
    ) -> ToolResult:
        output = capture.text()
        code = proc.returncode
        lines = [
            f"Command: {self.command}",
            f"Directory: {'(root)' if where == '.' else where}",
            f"Output: {output.rstrip() if output.strip() else '(empty)'}",
        ]
        if code is not None and code < 0:
            try:
                sig_name = signal.Signals(-code).name
            except ValueError:
                sig_name = str(-code)
            lines.append(f"Signal: {sig_name}")
        else:
            lines.append(f"Exit Code: {code}")
        lines.append(f"Process Group PGID: {proc.pid}")
        text = "\n".join(lines)
        data: dict[str, Any] = {"exit_code": code, "pgid": proc.pid, "timed_out": timed_out}
        if capture.spill is not None:
            data["output_file"] = str(capture.spill.path)  # already cut: see output_fit
        if timed_out:
            error = f"Command timed out after {timeout:g} seconds; its process group was killed.\n"
            return ToolResult(
                llm_content=error + text, display=output, error=error + text, data=data
            )
        return ToolResult(llm_content=text, display=output, data=data)

    def _start_background(self, cwd: Path, where: str, ctx: ToolContext) -> ToolResult:
        """Start in its own group with output to a log file; report the PID at once.

        The group is owned by the session (``ctx.background``) and ends when it closes;
        the output is masked as it is written, and the file goes with the session.
        """
        outputs = ctx.outputs or OutputStore.for_session(data_dir(), f"background-{os.getpid()}")
        try:
            spill = outputs.create(log_name(ctx.call_id or "shell"))
        except OSError as exc:
            raise ToolError(f"Cannot create the background command's log: {exc}") from exc
        remove_stale_logs(outputs.folder.parent)
        rfd, wfd = os.pipe()
        try:
            # its placeholders stay until gemtui exits (the background job may outlive us)
            launched, env = _launch(["bash", "-c", self.command], ctx)
            popen = subprocess.Popen(
                launched.argv,
                env=env,
                cwd=os.fspath(cwd),
                stdin=subprocess.DEVNULL,
                stdout=wfd,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except (OSError, ToolError) as exc:
            os.close(rfd)
            spill.close()
            with contextlib.suppress(OSError):
                os.unlink(spill.path)
            if isinstance(exc, ToolError):
                raise
            raise ToolError(f"Failed to start background command: {exc}") from exc
        finally:
            os.close(wfd)
        log = BackgroundLog(spill, rfd)
        ctx.background.add(popen)
        ctx.background.describe(popen, self.command, log)
        log_path = os.fspath(log.path)
        text = "\n".join(
            [
                f"Command: {self.command}",
                f"Directory: {'(root)' if where == '.' else where}",
                f"Output: (running in the background; output goes to {log_path})",
                f"Background PIDs: {popen.pid}",
                f"Process Group PGID: {popen.pid}",
            ]
        )
        result = ToolResult(
            llm_content=text,
            display=f"Started in background (PID {popen.pid})",
            data={"pid": popen.pid, "pgid": popen.pid, "log_path": log_path},
        )
        if ctx.sandbox is not None:
            _add_note(result, throwaway_note(self.command, ctx.sandbox))
        return result


class RunShellCommandTool(TypedTool[RunShellCommandParams]):
    """Why: builds, tests and git are run, not reimplemented; approval guards each call."""

    name = "run_shell_command"
    display_name = "Shell"
    kind = ToolKind.EXECUTE
    description = (
        "This tool executes a given shell command as `bash -c <command>`. To run a command in "
        "the background, set the `is_background` parameter to true. Command is executed as a "
        "subprocess that leads its own process group. Command process group can be "
        "terminated as `kill -- -PGID` or signaled as `kill -s SIGNAL -- -PGID`.\n\n"
        "The following information is returned:\n\n"
        "Command: Executed command.\n"
        "Directory: Directory where command was executed.\n"
        "Output: Combined stdout/stderr. Can be `(empty)` or partial on error.\n"
        "Exit Code: Exit code, or Signal: the signal that terminated the command.\n"
        "Background PIDs: Only included if the command was started in the background.\n"
        "Process Group PGID: Process group started for the command."
    )
    params_model = RunShellCommandParams

    def invoke(self, params: RunShellCommandParams, args: dict[str, Any]) -> ToolInvocation:
        return RunShellCommandInvocation(self, args, params)
