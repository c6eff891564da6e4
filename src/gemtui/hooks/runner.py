"""Running hook commands: Gemini CLI's protocol, bounded, visible and secret-free.

Each hook gets the event as JSON on stdin (``session_id``, ``cwd``, ``hook_event_name``,
``timestamp`` and the event's own fields) and may answer JSON on stdout. Exit 0: the
answer counts; exit 2: the action is blocked with stderr as the reason; anything else,
or a run past its timeout (its process group is killed), is a warning and changes
nothing. The input is masked by the redactor and the command's environment loses every
variable holding a secret gemtui knows, so a hook never sees a key. Every run is
published as ``HookRan`` and kept in ``runs`` for ``/hooks``.

Under ``-s`` a project's hook (from the workspace's settings) runs in the bubblewrap
sandbox with the sandbox's scrubbed environment, like any command the project supplies;
the person's own hooks (their home and config folders) run outside it. ``HookRan`` says
which.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gemtui.bus.events import ErrorOccurred, HookRan
from gemtui.errors import FatalConfigError
from gemtui.hooks.claude_dialect import claude_output, claude_payload, claude_text_output
from gemtui.hooks.config import HookSet, HookSpec
from gemtui.redact import redact
from gemtui.scheduler.tool_hooks import AfterToolVerdict, ToolHookVerdict
from gemtui.tools.sandbox import (
    SandboxConfig,
    SandboxedCommand,
    require_bwrap,
    scrubbed_env,
    wrap_command,
)

__all__ = ["HookAnswer", "HookRunner"]

MAX_OUTPUT = 64 * 1024
ADVISORY = ("SessionStart", "SessionEnd", "Notification", "PreCompress", "BeforeToolSelection")
"""Events whose ``continue``/``decision`` the reference says are ignored."""


class HookAnswer(Struct):
    """One run's outcome."""

    spec: HookSpec
    outcome: str
    """ok, blocked, failed or timed_out (``HookRan`` also says asked, rewrote, context)."""
    output: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    duration_ms: float = 0.0

    @property
    def denies(self) -> bool:
        if self.outcome == "blocked":
            return True
        return self.outcome == "ok" and self.output.get("decision") in ("deny", "block")

    @property
    def deny_reason(self) -> str:
        return self.reason if self.outcome == "blocked" else str(self.output.get("reason") or "")

    @property
    def stops(self) -> bool:
        """``continue: false``: the whole agent loop ends (not on advisory events)."""
        ok = self.outcome == "ok" and self.spec.event not in ADVISORY
        return ok and self.output.get("continue") is False

    @property
    def stop_reason(self) -> str:
        why = self.output.get("stopReason") or self.output.get("reason") or ""
        return str(why) or f"the {self.spec.name} hook stopped the agent"

    @property
    def specific(self) -> dict[str, Any]:
        value = self.output.get("hookSpecificOutput")
        return value if isinstance(value, dict) else {}


def _hook_env(workspace: Path) -> dict[str, str]:
    """The environment without any variable whose value is a secret gemtui masks."""
    env = {k: v for k, v in os.environ.items() if not v or redact(v) == v}
    env["GEMINI_PROJECT_DIR"] = env["GEMTUI_PROJECT_DIR"] = str(workspace)
    env["CLAUDE_PROJECT_DIR"] = str(workspace)  # what Claude Code's hooks use
    return env


class HookRunner:
    """The session's hooks; ``emit`` publishes on the session's bus."""

    def __init__(
        self,
        hooks: HookSet,
        *,
        workspace: Path,
        session_id: str,
        emit: Callable[..., Any],
        sandbox: SandboxConfig | None = None,
    ) -> None:
        self.hooks = hooks
        self.workspace = workspace
        self.session_id = session_id
        self.emit = emit
        self.sandbox = sandbox
        """The session's sandbox (``-s``): the project's hooks run in it."""
        self.runs: deque[HookAnswer] = deque(maxlen=50)
        """The latest runs, newest last (``/hooks``)."""
        self.observing: set[asyncio.Task[None]] = set()
        """Observing hooks started in the background and still running: this session's
        own, so closing it never waits for another session's."""
        self.stopped: str | None = None
        """Why a hook answered ``continue: false`` during this prompt (the loop ends)."""
        self.clear_context = False
        """The last AfterAgent answered ``hookSpecificOutput.clearContext: true``."""
        self.mcp_context: Callable[[str], dict[str, Any] | None] = lambda _name: None
        """Gemini CLI's ``mcp_context`` of a tool (None for a tool no MCP server gives)."""
        self.session_start: asyncio.Task[None] | None = None
        """SessionStart's hooks, started with the session: the first prompt waits for
        them, since their ``additionalContext`` goes with it."""

    async def run(
        self,
        event: str,
        payload: dict[str, Any],
        *,
        target: str | None = None,
        call_id: str | None = None,
    ) -> list[HookAnswer]:
        """Run the event's matching hooks one after another."""
        answers = []
        for spec in self.hooks.for_event(event, target):
            answer = await self._run_one(spec, {**self._base(event), **payload})
            self.runs.append(answer)
            self._publish(answer, None)
            answers.append(answer)
        return answers

    def _base(self, event: str) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "transcript_path": "",
            "cwd": str(self.workspace),
            "hook_event_name": event,
            "timestamp": datetime.now(UTC).isoformat(),
        }

    def _boxed(self, spec: HookSpec) -> bool:
        return self.sandbox is not None and spec.project

    def _launch(self, spec: HookSpec) -> tuple[SandboxedCommand, dict[str, str]]:
        """The hook's command line and environment: a project's hook under ``-s`` in the
        sandbox (raises ``FatalConfigError`` without bwrap); release it once it ended."""
        argv, env = ["bash", "-c", spec.command], _hook_env(self.workspace)
        if self.sandbox is None or not spec.project:
            return SandboxedCommand(argv, []), env
        return wrap_command(argv, self.sandbox, require_bwrap()), scrubbed_env(env)

    async def _run_one(self, spec: HookSpec, payload: dict[str, Any]) -> HookAnswer:
        if spec.claude:
            payload = claude_payload(spec, payload)
        try:
            launched, env = self._launch(spec)
        except FatalConfigError as exc:
            return HookAnswer(spec, "failed", reason=f"could not start: {exc}")
        with launched:  # the sandbox's placeholders go once the hook has ended
            return await self._run_launched(spec, launched.argv, env, payload)

    async def _run_launched(
        self, spec: HookSpec, argv: list[str], env: dict[str, str], payload: dict[str, Any]
    ) -> HookAnswer:
        data = redact(json.dumps(payload, default=str)).encode()
        started = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.workspace,
                env=env,
                start_new_session=True,  # a timeout ends everything it started
            )
        except (OSError, FatalConfigError) as exc:
            return HookAnswer(spec, "failed", reason=f"could not start: {exc}")
        try:
            out, err = await asyncio.wait_for(proc.communicate(data), spec.timeout_ms / 1000)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            return HookAnswer(
                spec,
                "timed_out",
                reason=f"timed out after {spec.timeout_ms / 1000:g} s (stopped)",
                duration_ms=(time.monotonic() - started) * 1000,
            )
        took = (time.monotonic() - started) * 1000
        stderr = err[:MAX_OUTPUT].decode("utf-8", "replace").strip()
        if proc.returncode == 2:
            return HookAnswer(
                spec, "blocked", reason=stderr or "blocked (exit 2)", duration_ms=took
            )
        if proc.returncode != 0:
            why = f"exited with code {proc.returncode}" + (f": {stderr}" if stderr else "")
            return HookAnswer(spec, "failed", reason=why, duration_ms=took)
        text = out[:MAX_OUTPUT].decode("utf-8", "replace").strip()
        try:
            output = json.loads(text) if text else {}
        except ValueError:
            if spec.claude:  # Claude Code takes plain text (context for some events)
                return HookAnswer(spec, "ok", claude_text_output(spec, text), duration_ms=took)
            return HookAnswer(spec, "failed", reason="stdout is not JSON", duration_ms=took)
        if not isinstance(output, dict):
            return HookAnswer(
                spec, "failed", reason="stdout is not a JSON object", duration_ms=took
            )
        if spec.claude:
            output = claude_output(spec, output)
        return HookAnswer(spec, "ok", output=output, duration_ms=took)

    def _publish(self, answer: HookAnswer, call_id: str | None) -> None:
        outcome = answer.outcome
        message = answer.reason
        if answer.stops:
            self.stopped = self.stopped or answer.stop_reason
            outcome, message = "stopped", answer.stop_reason
        elif outcome == "ok":
            if answer.denies:
                outcome, message = "blocked", answer.deny_reason
            elif answer.output.get("decision") == "ask":
                outcome, message = "asked", str(answer.output.get("reason") or "")
            elif answer.specific.get("tool_input"):
                outcome = "rewrote"
            elif answer.specific.get("additionalContext"):
                outcome = "context"
        shown = str(answer.output.get("systemMessage") or "")  # for the person, always
        if outcome == "ok" and not message and not shown and answer.output.get("suppressOutput"):
            return  # a run that changed nothing, kept out of the transcript as asked
        if shown and shown not in message:
            message = f"{message} ({shown})" if message else shown
        self.emit(
            HookRan,
            hook_event=answer.spec.event,
            hook=answer.spec.name,
            outcome=outcome,
            message=message,
            call_id=call_id,
            duration_ms=answer.duration_ms,
            sandboxed=None if self.sandbox is None else self._boxed(answer.spec),
        )
        if answer.outcome in ("failed", "timed_out"):
            self.emit(
                ErrorOccurred,
                message=f"{answer.spec.event} hook {answer.spec.name} {answer.reason}",
                kind="warning",
                hint="It changed nothing; /hooks lists the hooks and their last runs.",
            )

    # -- events with effects -------------------------------------------------------------

    async def before_tool(self, call_id: str, name: str, args: dict[str, Any]) -> ToolHookVerdict:
        """BeforeTool: a deny (or exit 2) refuses the call; ``ask`` wants the person asked
        even where policy allows it; ``tool_input`` rewrites it."""
        rewritten: dict[str, Any] = {}
        ask: str | None = None
        for spec in self.hooks.for_event("BeforeTool", name):
            payload = {"tool_name": name, "tool_input": {**args, **rewritten}, **self._mcp(name)}
            answer = await self._run_one(spec, {**self._base("BeforeTool"), **payload})
            self.runs.append(answer)
            self._publish(answer, call_id)
            if answer.denies or answer.stops:
                why = answer.deny_reason or answer.stop_reason
                return ToolHookVerdict(blocked=True, reason=why)
            if answer.outcome == "ok" and answer.output.get("decision") == "ask":
                ask = str(answer.output.get("reason") or f"the {spec.name} hook asks")
            new = answer.specific.get("tool_input")
            if isinstance(new, dict):
                rewritten.update(new)
        return ToolHookVerdict(ask=ask is not None, reason=ask or "", tool_input=rewritten or None)

    async def after_tool(
        self, call_id: str, name: str, args: dict[str, Any], output: str, error: str | None
    ) -> AfterToolVerdict:
        """AfterTool: a deny (or exit 2) replaces the result with its reason;
        ``tool_output`` replaces it; ``additionalContext`` is added after it."""
        replace: str | None = None
        extra: list[str] = []
        response = {"llmContent": output, "returnDisplay": output, "error": error}
        for spec in self.hooks.for_event("AfterTool", name):
            payload = {"tool_name": name, "tool_input": args, "tool_response": response}
            payload.update(self._mcp(name))
            answer = await self._run_one(spec, {**self._base("AfterTool"), **payload})
            self.runs.append(answer)
            self._publish(answer, call_id)
            if answer.denies:
                replace = answer.deny_reason or "The result was withheld by a hook."
                continue
            new = answer.specific.get("tool_output")
            if isinstance(new, str):
                replace = new
            more = answer.specific.get("additionalContext")
            if isinstance(more, str) and more.strip():
                extra.append(more)
        append = "\n\n".join(extra)
        return AfterToolVerdict(replace=replace, append=append)

    def _mcp(self, name: str) -> dict[str, Any]:
        context = self.mcp_context(name)
        return {"mcp_context": context} if context is not None else {}

    async def before_agent(self, prompt: str) -> tuple[str | None, str]:
        """BeforeAgent: ``(why it is blocked or None, extra context for this prompt)``; a
        ``continue: false`` (not a deny) leaves ``stopped`` set: the prompt is kept."""
        context: list[str] = []
        for answer in await self.run("BeforeAgent", {"prompt": prompt}):
            if answer.denies:
                return answer.deny_reason or f"blocked by the {answer.spec.name} hook", ""
            if answer.stops:
                return answer.stop_reason, ""
            extra = answer.specific.get("additionalContext")
            if isinstance(extra, str) and extra.strip():
                context.append(extra)
        return None, "\n\n".join(context)

    async def after_agent(self, prompt: str, response: str, *, retrying: bool) -> str | None:
        """AfterAgent: a deny (Claude Code's Stop ``block``, exit 2) rejects the answer and
        its reason goes back to the agent as the next prompt; None when it stands (or a
        hook's ``continue: false`` ends the prompt here)."""
        payload = {"prompt": prompt, "prompt_response": response, "stop_hook_active": retrying}
        again: str | None = None
        answers = await self.run("AfterAgent", payload)
        self.clear_context = any(a.specific.get("clearContext") is True for a in answers)
        for answer in answers:
            if answer.stops:
                return None
            if answer.denies and again is None:
                again = answer.deny_reason or f"The {answer.spec.name} hook rejected the answer."
        return again

    async def advise(self, event: str, payload: dict[str, Any]) -> None:
        """An event whose hooks only observe (SessionStart, AfterAgent, PreCompress…)."""
        if self.hooks.for_event(event):
            await self.run(event, payload)
