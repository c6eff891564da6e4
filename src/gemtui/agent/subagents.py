"""The session's subagents: found, offered as tools, and each run as a child executor.

A delegated task runs in task mode on the session's engine (its provider, policy engine,
approval mode, checkpoints, hooks and workspace) with its own chat, history and tool set.
Its tools are what its definition names *and* the session has (never more: a name it
lists that the session lacks or excludes is simply not there, and the child's registry is
all its scheduler can run, whatever the model asks for). Delegation nests at most
``[agents] max_depth`` deep. A cancel of the parent (Esc, Ctrl-C, its timeout) cancels
the child's task, which ends its turn and its calls at once.
"""

from __future__ import annotations

import asyncio
import json
import platform
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from msgspec.structs import replace

from gemtui.agent.agent_defs import AgentDefinition, AgentSet, load_agents
from gemtui.agent.executor import COMPLETE_TASK, Executor, ExecutorConfig
from gemtui.agent.reload_hint import reload_hint
from gemtui.agent.subagent_background import BackgroundAgents, BackgroundRun
from gemtui.agent.subagent_tool import (
    InvestigationReport,
    SubagentTool,
    TaskReport,
    subagent_tool,
)
from gemtui.bus import AgentFinished, ErrorOccurred, TerminateReason
from gemtui.bus.child import ChildBus
from gemtui.chat.chat import Chat
from gemtui.tools.base import ToolContext, ToolError, ToolResult
from gemtui.tools.registry import ToolRegistry
from gemtui.wire import FunctionDeclaration, GenerationConfig

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from gemtui.agent.checkpointing import SessionCheckpoints
    from gemtui.bus import EventBus
    from gemtui.scheduler import PolicyEngine
    from gemtui.scheduler.change_guard import ChangeGuard
    from gemtui.scheduler.tool_hooks import ToolHooks
    from gemtui.tools.base import Tool

__all__ = ["SubagentParent", "Subagents"]


class SubagentParent(Struct, frozen=True, kw_only=True):
    """The session engine a delegated task runs on, handed over whole. What a switch or
    a mode change replaces (the approval mode, the chat's model, the executor's config)
    is read through a function, so a task started later runs on what is current."""

    bus: EventBus
    root: Path
    trusted: bool
    interactive: bool
    max_depth: int
    max_spawns: int
    registry: ToolRegistry
    policy: PolicyEngine
    tool_context: ToolContext
    hooks: ToolHooks | None
    checkpoints: SessionCheckpoints | None
    approval_mode: Callable[[], str]
    chat: Callable[[], Chat]
    executor: Callable[[], Executor]


_TASK_SUFFIX = """

You work in the workspace root {root} (platform: {platform}), on one task given to you by
another agent, which sees only your final report. When you are done, call complete_task
with it."""


class _OneChangeAtATime:
    """Subagents running side by side change the workspace one call at a time: each
    change still gets its own checkpoint, and no two run (or checkpoint) at once."""

    def __init__(self, inner: ChangeGuard | None) -> None:
        self.inner = inner
        self.lock = asyncio.Lock()

    async def before(self, tool: Tool, invocation: Any) -> object | None:
        await self.lock.acquire()
        try:
            token = await self.inner.before(tool, invocation) if self.inner else None
        except BaseException:
            self.lock.release()
            raise
        return (token,)  # never None, so ``after`` always runs and releases

    async def after(self, token: object) -> None:
        try:
            inner_token = token[0] if isinstance(token, tuple) else None
            if self.inner is not None and inner_token is not None:
                await self.inner.after(inner_token)
        finally:
            self.lock.release()


class Subagents:
    """The agents of one session and the runner of their tasks."""

    def __init__(self, parent: SubagentParent) -> None:
        self.parent = parent
        self.found = AgentSet()
        self._installed: list[str] = []
        self._guard: _OneChangeAtATime | None = None
        self.background = BackgroundAgents()
        """The subagents running in the background, and their reports not yet delivered
        (the conversation's executor takes them once one started: its config's ``inbox``)."""
        self.spawned = 0
        """How many subagents this session started (``[agents] max_spawns``); a resumed
        session starts afresh (resuming is the person's act, not the model's)."""
        self._spawns_said = False

    @property
    def max_depth(self) -> int:
        return self.parent.max_depth

    @property
    def max_spawns(self) -> int:
        return self.parent.max_spawns

    def watch_background(self, fn: Callable[[BackgroundRun], None]) -> Callable[[], None]:
        """Call ``fn`` when a background subagent starts and when it ends."""
        return self.background.watch(fn)

    @property
    def agents(self) -> dict[str, AgentDefinition]:
        return self.found.agents

    def load(self) -> AgentSet:
        """(Re)read the definitions and offer each as a tool (``/agents reload``)."""
        parent = self.parent
        registry = parent.registry
        for name in self._installed:
            registry.unregister(name)
        self._installed = []
        tool_names = {n for t in registry.tools() for n in (t.name, *t.aliases)}
        reserved = frozenset(tool_names | {COMPLETE_TASK})
        self.found = load_agents(parent.root, trusted=parent.trusted, reserved=reserved)
        if self.max_depth < 1:
            return self.found
        for definition in self.found.agents.values():
            registry.register(subagent_tool(definition, self, depth=0))
            self._installed.append(definition.name)
        return self.found

    def delegation(self, prompt: str) -> str | None:
        """``@agent-name task`` (or ``/agents run NAME task`` in the TUI): the prompt
        asking the model to hand ``task`` to that agent; None for any other prompt."""
        head, _, task = prompt.strip().partition(" ")
        name = head[1:] if head.startswith("@") else ""
        if name not in self._installed or not task.strip():
            return None
        return (
            f"{task.strip()}\n\n(The user asks you to delegate this to the {name} agent: "
            f"call the {name} tool with the whole task, then report what it found.)"
        )

    def announce_problems(self) -> None:
        for problem in self.found.problems:
            self.parent.bus.emit(
                ErrorOccurred,
                message=f"Agent not loaded: {problem}",
                kind="warning",
                hint=reload_hint("agents", interactive=self.parent.interactive),
            )

    # -- running ---------------------------------------------------------------------

    async def run_task(
        self, tool: SubagentTool, task: str, ctx: ToolContext, *, background: bool = False
    ) -> ToolResult:
        """Run ``task`` with the tool's agent as a child of the call ``ctx.call_id``
        (``background``: started, answered at once, reported later; the conversation's
        own calls only, a subagent's run in the foreground)."""
        definition, depth = tool.definition, tool.depth
        if depth >= self.max_depth:
            raise ToolError(
                f"{definition.name} cannot be started from here: subagents may not start "
                f"subagents deeper than [agents] max_depth = {self.max_depth}. Do the task "
                "yourself."
            )
        if self.spawned >= self.max_spawns:
            message = (
                f"{definition.name} was not started: this session reached its limit of "
                f"{self.max_spawns} subagents ([agents] max_spawns). Do the task yourself."
            )
            if not self._spawns_said:  # the person hears it once (a TUI line, stderr)
                self._spawns_said = True
                self.parent.bus.emit(ErrorOccurred, message=message, kind="warning")
            raise ToolError(message)
        self.spawned += 1
        bus = ChildBus(tool.bus or self.parent.bus, ctx.call_id, definition.name)
        executor = self._executor(definition, bus, depth + 1)
        if background and depth == 0:
            return self._start_background(definition, executor, task, ctx.call_id)
        cancel = asyncio.Event()
        run = asyncio.ensure_future(executor.run(task, cancel=cancel))
        try:
            done = await asyncio.shield(run)
        except asyncio.CancelledError:
            cancel.set()  # the parent was cancelled: the child ends its turn and calls now
            await asyncio.wait({run})
            raise
        return _result(definition, done)

    def _start_background(
        self, definition: AgentDefinition, executor: Executor, task: str, call_id: str
    ) -> ToolResult:
        """Start the child on its own; the conversation's loop gets its report later."""
        owner = self.parent.executor()
        if owner.config.inbox is not self.background:  # the conversation waits for reports
            owner.config = replace(owner.config, inbox=self.background)
        self.background.start(
            call_id,
            definition.name,
            task,
            definition.model,
            lambda cancel: executor.run(task, cancel=cancel),
            lambda done: _report_of(_result(definition, done)),
        )
        text = (
            f"Started the {definition.name} agent in the background. Go on with your own "
            "work; its report will arrive as a message when it is done."
        )
        return ToolResult(
            llm_content=text,
            display=f"{definition.name} started in the background",
            data={"agent": definition.name, "background": True},
        )

    async def stop_background(self) -> None:
        """Cancel the background subagents still running and wait for them to end (the
        session is closing: they use its provider)."""
        self.background.stop_all()
        await self.background.wait_all()

    def _executor(self, definition: AgentDefinition, bus: ChildBus, depth: int) -> Executor:
        from gemtui.scheduler import ToolScheduler

        host, parent_chat = self.parent, self.parent.chat()

        registry = self._child_registry(definition, depth, bus)
        scheduler = ToolScheduler(
            registry,
            bus,
            host.policy,
            host.tool_context,
            approval_mode=host.approval_mode,
            interactive=host.interactive,
            guard=self._change_guard(),
            hooks=host.hooks,
        )
        base = parent_chat.generation_config or GenerationConfig()
        config = base
        if definition.temperature is not None:
            config = base.model_copy(update={"temperature": definition.temperature})
        prompt = definition.prompt + _TASK_SUFFIX.format(root=host.root, platform=platform.system())
        chat = Chat(
            parent_chat.generator,
            model=definition.model or parent_chat.model,
            system_instruction=prompt,
            declarations=self._declarations(registry),
            generation_config=config if config.model_fields_set else None,
            retry_delays=parent_chat.retry_delays,
            max_answer_chars=parent_chat.max_answer_chars,
            output_bound=parent_chat.output_bound,
            on_history=bus.history_changed,  # its story is stored under the parent call
        )
        parent = host.executor().config
        return Executor(
            chat,
            scheduler,
            bus,
            ExecutorConfig(
                max_turns=definition.max_turns,
                timeout=definition.timeout,
                grace_period=min(60.0, definition.timeout or 60.0),
                output_schema=InvestigationReport if definition.structured else TaskReport,
                context_window=parent.context_window,
                compression_threshold=parent.compression_threshold,
                compression_preserve=parent.compression_preserve,
                prices=dict(parent.prices),
                stream_loop_detection=parent.stream_loop_detection,
                budget=parent.budget,
            ),
        )

    def _change_guard(self) -> _OneChangeAtATime:
        """One for the session, around its checkpoints (which may be switched off)."""
        if self._guard is None or self._guard.inner is not self.parent.checkpoints:
            self._guard = _OneChangeAtATime(self.parent.checkpoints)
        return self._guard

    def _child_registry(
        self, definition: AgentDefinition, depth: int, bus: ChildBus
    ) -> ToolRegistry:
        """The tools the definition names that the session has; agents only above the
        depth limit, and only those the definition names (or all, for an open list)."""
        allowed = definition.tools
        registry = ToolRegistry()
        for tool in self.parent.registry.tools():
            if isinstance(tool, SubagentTool):
                continue
            if allowed is not None and not ({tool.name, *tool.aliases} & set(allowed)):
                continue
            registry.register(tool)
        if depth < self.max_depth:
            for other in self.found.agents.values():
                if other.name == definition.name or other.name in registry:
                    continue
                if allowed is None or other.name in allowed:
                    registry.register(subagent_tool(other, self, depth=depth, bus=bus))
        return registry

    def _declarations(self, registry: ToolRegistry) -> list[FunctionDeclaration]:
        """As the session's: no tool a rule refuses outright, read-only ones in plan mode."""
        from gemtui.agent.session_parts import offered_declarations

        parent = self.parent
        return offered_declarations(
            registry, parent.policy, parent.approval_mode(), parent.chat().generator
        )


def _report_text(output: object) -> str:
    """A general agent's report as its text; a structured one as JSON."""
    if isinstance(output, TaskReport):
        return output.report
    if isinstance(output, InvestigationReport):
        return json.dumps(output.model_dump(), ensure_ascii=False, indent=2)
    return str(output)


def _result(definition: AgentDefinition, done: AgentFinished) -> ToolResult:
    """The delegation's result: the report, or why the agent stopped without one."""
    data = {
        "agent": definition.name,
        "turns": done.turns,
        "reason": str(done.reason),
        "tokens": done.usage.total,
        "cost": done.cost,
    }
    if done.reason == TerminateReason.GOAL and done.output is not None:
        text = _report_text(done.output)
        shown = done.output.shown() if isinstance(done.output, InvestigationReport) else text
        return ToolResult(llm_content=text, display=shown, data=data)
    why = done.error or str(done.reason)
    said = done.text.strip()
    tail = f" What it said last: {said[-2000:]}" if said else ""
    return ToolResult(
        error=f"The {definition.name} agent stopped without a report ({why}).{tail}",
        data=data,
    )


def _report_of(result: ToolResult) -> str:
    """What the conversation is told when a background agent ends."""
    if result.error:
        return result.error
    return str(result.llm_content)
