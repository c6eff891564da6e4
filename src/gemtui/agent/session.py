"""Session: wires provider, chat, tools, scheduler, policy and bus for one conversation."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from gemtui.agent.account_watch import AccountWatch
from gemtui.agent.cancellable import until_cancelled
from gemtui.agent.context_files import ContextFiles, add_memory
from gemtui.agent.environment_context import environment_context
from gemtui.agent.error_text import ErrorContext
from gemtui.agent.executor import Executor, ExecutorConfig
from gemtui.agent.prompt import build_system_instruction, load_core_override
from gemtui.agent.prompt_fit import fit_prompt
from gemtui.agent.provider_choice import ResolvedProvider, fallback_chain
from gemtui.agent.session_extensions import (
    extension_context_dirs,
    load_extensions,
    with_extension_servers,
)
from gemtui.agent.session_hooks import (
    before_agent,
    build_hooks,
    drain_hooks,
    fire_session_start,
)
from gemtui.agent.session_parts import (
    fetch_limits,
    generation_config,
    mcp_tools,
    next_speaker_for,
    router_for,
    sandbox_config,
    session_checkpoints,
    start_model,
    workspace_rules,
)
from gemtui.agent.subagents import Subagents
from gemtui.agent.user_commands import (
    ShellNotes,
    add_roots,
    announce_problems,
    expand_custom,
    load_session_commands,
    run_shell_mode,
)
from gemtui.bus import (
    AgentFinished,
    Event,
    EventBus,
    HistoryAppended,
    HistoryReplaced,
    RequestRetrying,
    SessionStarted,
    ToolCallState,
    ToolCallStateChanged,
)
from gemtui.chat.chat import Chat
from gemtui.chat.history import strip_thought_signatures
from gemtui.config.paths import config_dir, data_dir
from gemtui.config.settings import Settings
from gemtui.errors import NothingListeningError
from gemtui.providers.retry import RetryingGenerator, RetryNotice
from gemtui.providers.tool_guidance import compact_declarations
from gemtui.tools.offload import run_off_loop
from gemtui.tools.sandbox_places import HOME_RUN_LATER, home_places
from gemtui.wire import (
    Content,
    FunctionDeclaration,
    GenerateContentRequest,
    GenerateContentResponse,
    Part,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from gemtui.agent.agent_defs import AgentSet
    from gemtui.bus import EventBus
    from gemtui.commands import CommandSet
    from gemtui.providers.base import ContentGenerator

__all__ = ["Session", "SessionOptions"]

MEMORY_TOOL = "save_memory"
"""Its success changes the person's GEMINI.md: the next request reads it again."""
COMPACT_LISTING = 15
"""Top-level entries shown to a small model (its window is precious); others get 50."""

_READING_TOOLS = frozenset({"read_file", "list_directory", "glob", "grep_search"})
_PATH_ARGS = ("file_path", "dir_path", "path")
"""Tools whose path argument brings a subfolder's context files in (just in time)."""

GROUNDED_TOOL = "google_web_search"
"""Offered only when the provider's API has Google Search grounding."""


@dataclass
class SessionOptions:
    """A session's per-run options (from the assembly: flags over settings)."""

    workspace: Path
    approval_mode: str = "default"
    interactive: bool = True
    max_turns: int = -1
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    history: list[Content] | None = None
    stream_retry_delays: tuple[float, ...] = (1.0, 2.0, 4.0)
    trusted_workspace: bool = False
    """The folder is trusted: its own ``.gemtui/policy.toml`` rules apply."""
    include_directories: tuple[str, ...] = ()
    """More workspace roots (``--include-directories``, ``[workspace]``)."""
    sandbox: bool = False
    """``-s``: shell commands run under bubblewrap whatever ``[tools.sandbox]`` says."""


class Session:
    """One conversation: ``await session.send("…")`` runs a prompt through the loop."""

    def __init__(
        self, settings: Settings, provider: ResolvedProvider, options: SessionOptions
    ) -> None:
        from gemtui.scheduler import PolicyEngine, ToolScheduler
        from gemtui.tools.base import ToolContext
        from gemtui.tools.registry import default_registry
        from gemtui.tools.saved_output import OutputStore
        from gemtui.tools.workspace import Workspace

        self.settings = settings
        self.provider = provider
        self.options = options
        self.id = options.session_id
        self.bus = EventBus(self.id)
        self.approval_mode = options.approval_mode
        self.workspace = Workspace(options.workspace)
        add_roots(self.workspace, options.include_directories)
        self.registry = default_registry()
        for name in settings.tools.exclude:
            self.registry.unregister(name)
        self.extensions = load_extensions(self.workspace.root, self.registry)
        self.policy = PolicyEngine(
            workspace_rules(options.workspace, trusted=options.trusted_workspace),
            user_policy_file=config_dir() / "policy.toml",
            workspace_root=self.workspace.root,
            protected_dirs=(config_dir(), *home_places(HOME_RUN_LATER)),
        )
        self.context_files = ContextFiles(
            self.workspace.root,
            names=settings.context.names,
            home=config_dir(),
            extra_dirs=extension_context_dirs(self.extensions)
            + tuple((root, settings.context.names) for root in self.workspace.roots[1:]),
        ).load()
        self.mcp = mcp_tools(
            with_extension_servers(settings, self.extensions), self.registry, self.policy, self.bus
        )
        self.tool_context = context = ToolContext(
            workspace=self.workspace,
            shell_timeout=settings.tools.shell_timeout,
            output_limit=settings.tools.output_limit,
            outputs=OutputStore.for_session(data_dir(), self.id),
            model_stream=self._model_stream,
            fetch=fetch_limits(settings),
            sandbox=sandbox_config(
                settings, self.workspace.root, self.workspace.roots[1:], forced=options.sandbox
            ),
            edit_fixer=settings.tools.edit_fixer,
            memory_file=config_dir() / "GEMINI.md",
        )
        self.scheduler = ToolScheduler(
            self.registry,
            self.bus,
            self.policy,
            context,
            approval_mode=lambda: self.approval_mode,
            interactive=options.interactive,
        )
        if self.mcp is not None and context.sandbox is not None and settings.tools.sandbox.mcp:
            self.mcp.manager.sandbox = context.sandbox
        self.checkpoints = session_checkpoints(settings, self.bus, self.workspace, self.id)
        self.scheduler.guard = self.checkpoints
        self.agents = Subagents(self)
        self.agents.load()  # each agent a tool of the registry, before the declarations
        if isinstance(provider.generator, RetryingGenerator):
            provider.generator.on_retry = self._on_retry
        self.account = AccountWatch(self.bus, self.id)
        self.account.bind(provider.generator)
        self._compact_tools: bool | None = None
        """Whether tools get the compact description (and the compact core prompt);
        decided before the first prompt."""
        self._core_override = load_core_override(settings.prompt.system_file, self.workspace.root)
        """The person's own core prompt (``GEMINI_SYSTEM_MD``, ``[prompt] system_file``)."""
        self._environment = ""
        """Date, system, listing and git status: gathered once, from the session's start.
        A prompt at the screen never waits for it: it joins the first request after."""
        self._fitted = asyncio.Event()
        """The model's window is known (``_compact_tools`` set): a request can be built."""
        self._preparing: asyncio.Task[None] | None = None
        """The first prompt's groundwork (``prepare``), perhaps started before it."""
        self._prompted = False
        """A prompt was sent: a model chosen later keeps the groundwork (as it always did)."""
        self.chat = Chat(
            provider.generator,
            model=start_model(provider),
            system_instruction=self._system_instruction(),
            declarations=self._declarations(),
            # signatures belong to the model that made them; a resumed history may come
            # from another one (the active loop gets the "skip" value when needed)
            history=strip_thought_signatures(options.history) if options.history else None,
            generation_config=generation_config(provider),
            retry_delays=options.stream_retry_delays,
            max_answer_chars=settings.chat.max_answer_chars,
        )
        self.executor = Executor(
            self.chat,
            self.scheduler,
            self.bus,
            ExecutorConfig(
                max_turns=options.max_turns,
                context_window=provider.context_window,
                compression_threshold=settings.chat.compression_threshold,
                compression_preserve=settings.chat.compression_preserve,
                fallback=fallback_chain(provider, start_model(provider)),
                router=router_for(provider, provider.model, self._plan_mode),
                prices=dict(provider.settings.prices),
                error_context=self._error_context,
                stream_loop_detection=settings.chat.loop_detection,
                next_speaker=next_speaker_for(settings, provider),
            ),
        )
        self.chat.on_history = self._history_changed
        self.bus.subscribe(self._context_just_in_time)
        self._cancel: asyncio.Event | None = None
        self.bus.on_cancel(self.cancel)
        self.commands = load_session_commands(self)
        self.shell_notes = ShellNotes()
        self.hooks = build_hooks(self)

    def _declarations(self) -> list[FunctionDeclaration]:
        from gemtui.scheduler import READ_ONLY_KINDS

        denied = set(self.policy.denied_tool_names(self.registry.names(), self.approval_mode))
        if self.approval_mode == "plan":  # plan mode: the model is offered read-only tools only
            denied |= {t.name for t in self.registry.tools() if t.kind not in READ_ONLY_KINDS}
        if not self.chat_generator.capabilities.grounding:
            denied.add(GROUNDED_TOOL)  # only Gemini APIs can search (googleSearch)
        decls = self.registry.declarations(exclude=denied)
        return compact_declarations(decls) if self._compact_tools else decls

    def _error_context(self) -> ErrorContext:
        from gemtui.agent.provider_choice import list_models

        provider = self.provider
        models = tuple(m for p, m in list_models(self.settings) if p == provider.name)
        policy = getattr(provider.generator, "policy", None)
        return ErrorContext(
            provider=provider.kind,
            model=self.chat.model,
            models=models,
            project=self.account.project,
            attempts=getattr(policy, "max_attempts", 1),
        )

    @property
    def chat_generator(self) -> ContentGenerator:
        """The provider's generator (the chat's once it exists: a switch changes it)."""
        chat = getattr(self, "chat", None)
        return chat.generator if chat is not None else self.provider.generator

    def _model_stream(
        self, request: GenerateContentRequest
    ) -> AsyncIterator[GenerateContentResponse]:
        """A one-off request to the current model, for tools (google_web_search)."""
        from gemtui.tools.base import ToolError

        generator = self.chat_generator
        searches = any(t.google_search is not None for t in request.tools or [])
        if searches and not generator.capabilities.grounding:
            raise ToolError(
                f"Web search needs Google Search grounding, which the {generator.name} "
                "provider does not offer; use a Gemini provider."
            )
        return generator.stream(request, model=self.chat.model)

    def _on_retry(self, notice: RetryNotice) -> None:
        error = notice.error
        target = ""
        if isinstance(error, NothingListeningError):
            target = f"nothing on {urlsplit(error.url).netloc}"
        self.bus.emit(
            RequestRetrying,
            attempt=notice.attempt,
            max_attempts=notice.max_attempts,
            wait=notice.wait,
            message=str(notice.error),
            target=target,
        )

    def _history_changed(self, index: int, content: Content | None, reason: str | None) -> None:
        if content is not None:
            self.bus.emit(HistoryAppended, index=index, content=content)
        else:
            self.bus.emit(
                HistoryReplaced, contents=tuple(self.chat.history), reason=reason or "replace"
            )

    @property
    def model(self) -> str:
        """The model the next request goes to (the chat holds it; fallback changes it)."""
        return self.chat.model

    def start(self) -> None:
        """Say the session began; a resumed history is published whole, so a subscriber
        (the recorder) knows the conversation without reading the chat."""
        self.bus.emit(
            SessionStarted,
            provider=self.provider.name,
            model=self.chat.model,
            workspace=str(self.workspace.root),
        )
        announce_problems(self, self.commands)
        self.agents.announce_problems()
        fire_session_start(self, "resume" if self.chat.history else "startup")
        self.start_mcp()
        with contextlib.suppress(RuntimeError):  # no loop yet: the first prompt does it
            self.prepare()  # the first prompt's groundwork, while the person types it
        if self.options.interactive:  # the usage pane shows the account's tier and quota
            self.account.refresh_soon()
        if self.chat.history:
            self.bus.emit(HistoryReplaced, contents=tuple(self.chat.history), reason="resume")

    async def switch_model(self, model: str, provider: ResolvedProvider | None = None) -> None:
        """Change model (and maybe provider) between prompts, keeping the conversation."""
        before = self.chat.model
        if provider is not None and provider is not self.provider:
            old = self.provider
            self.provider = provider
            if isinstance(provider.generator, RetryingGenerator):
                provider.generator.on_retry = self._on_retry
            self.account.bind(provider.generator)
            self.chat.generator = provider.generator
            self.executor.config.context_window = provider.context_window
            self.executor.config.prices = dict(provider.settings.prices)
            self.executor.last_prompt_tokens = 0
            self._compact_tools = None  # the new provider's window decides
            self._fitted.clear()
            self.stop_preparing()
            self.executor.config.next_speaker = next_speaker_for(self.settings, provider)
            await old.generator.aclose()
        if model != before and not self._prompted:  # the groundwork was for the model before
            self._compact_tools = None
            self._fitted.clear()
            self.stop_preparing()
        self.executor.config.router = router_for(self.provider, model, self._plan_mode)
        if self.executor.config.router is None:
            self.chat.set_model(model)
        self.chat.generation_config = generation_config(self.provider)
        self.executor.config.fallback = fallback_chain(self.provider, self.chat.model)
        if self._compact_tools is None:  # done for the new model while the person types
            self.prepare()

    def _plan_mode(self) -> bool:
        return self.approval_mode == "plan"

    def set_approval_mode(self, mode: str) -> None:
        self.approval_mode = mode
        self.chat.declarations = self._declarations()

    def prepare(self) -> asyncio.Task[None]:
        """Start the first prompt's groundwork now, so Enter does not wait for it: the
        model's window (a local server is asked) and the environment (``git status``,
        the listing). Call on the loop the session runs on; await it to wait for it.

        A groundwork that failed or was cancelled is started again; one that succeeded
        is done again only for a new provider (or a model chosen before the first
        prompt: see ``switch_model``)."""
        task = self._preparing
        if task is None or (task.done() and (task.cancelled() or task.exception())):
            task = asyncio.get_running_loop().create_task(self._prepare(), name="gemtui-prepare")
            self._preparing = task
        return task

    async def _ready_to_send(self) -> None:
        """Wait for what the request needs: the model's window, and the environment too
        unless a person waits at the screen (``git status`` in a large repository may take
        seconds: the environment then joins the first request after it is gathered)."""
        task = self.prepare()
        if self.options.interactive:
            fitted = asyncio.ensure_future(self._fitted.wait())
            try:  # the groundwork goes on either way (for the next request)
                await asyncio.wait({task, fitted}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                fitted.cancel()
            if self._fitted.is_set():
                return
        await asyncio.shield(task)  # headless waits for all; a failure is raised here

    async def _prepare(self) -> None:
        if self._compact_tools is None:
            compact = await fit_prompt(self.provider, self.chat.model)
            self.executor.config.context_window = self.provider.context_window
            self._compact_tools = compact
            self.chat.system_instruction = self._system_instruction()
        self._fitted.set()
        if not self._environment:  # a groundwork cut short gathers it again
            limit = COMPACT_LISTING if self._compact_tools else 50
            self._environment = await run_off_loop(  # never joined at exit
                lambda _: environment_context(self.workspace, max_entries=limit),
                name="gemtui-environment",
            )
            self.chat.system_instruction = self._system_instruction()

    async def send(self, prompt: str, *, media: list[Part] | None = None) -> AgentFinished:
        """Run one prompt to the end. Cancel with ``cancel()`` (or ``bus.cancel()``).

        ``media`` (images an editor attached) go to the model after the prompt's text.
        """
        self._prompted = True
        self._cancel = cancel = asyncio.Event()
        try:
            if self._compact_tools is None or not (self._environment or self.options.interactive):
                # A cancel while the groundwork waits (a local server slow to give its
                # window) ends the prompt now; the executor keeps it, unanswered. The
                # groundwork itself goes on, for the next prompt.
                await until_cancelled(self._ready_to_send(), cancel)
            self.chat.declarations = self._declarations()
            if self.checkpoints is not None:
                self.checkpoints.prompt = prompt
            refused = await before_agent(self, prompt)
            if refused is not None:
                return refused
            if media:
                parts = [Part(text=prompt), *media]
                return await self.executor.run(
                    parts, cancel=self._cancel, attached=f"{len(media)} attachment(s)"
                )
            expanded = await expand_custom(self, prompt) if prompt.startswith("/") else None
            if isinstance(expanded, AgentFinished):
                return expanded
            if expanded is not None:  # a custom command: its expansion is the prompt
                return await self.executor.run(
                    self.shell_notes.attach(expanded[0]), cancel=self._cancel, attached=expanded[1]
                )
            prompt = self.agents.delegation(prompt) or prompt  # "@agent-name task"
            if "@" in prompt:  # @path attaches files (read before the prompt is announced)
                from gemtui.agent.at_paths import attach_files

                found = await attach_files(prompt, self.tool_context)
                if found.parts or found.notes:
                    message = self.shell_notes.attach(found.parts or prompt)
                    return await self.executor.run(
                        message, cancel=self._cancel, attached=found.summary()
                    )
            return await self.executor.run(self.shell_notes.attach(prompt), cancel=self._cancel)
        finally:
            self._cancel = None
            if self.options.interactive:  # headless exits now: no look-up it would not show
                self.account.refresh_soon()

    def _system_instruction(self) -> str:
        return build_system_instruction(
            self.workspace.root,
            self.context_files,
            core=self._core_override,
            environment=self._environment,
            compact=bool(self._compact_tools),
            tools=self.registry.names(),
        )

    def _context_just_in_time(self, event: Event) -> None:
        """A read tool went into a subfolder: its context files join the next request; a
        saved memory is read back for the next request too."""
        if not (
            isinstance(event, ToolCallStateChanged) and event.call.state == ToolCallState.SUCCESS
        ):
            return
        if event.call.name == MEMORY_TOOL:
            found = [f.path for f in self.context_files.files if f.scope == "subfolder"]
            self.context_files.load()
            for path in found:  # keep what reading subfolders brought in
                self.context_files.discover(path)
            self.chat.system_instruction = self._system_instruction()
            return
        if event.call.name not in _READING_TOOLS:
            return
        arg = next((event.call.args.get(k) for k in _PATH_ARGS if event.call.args.get(k)), None)
        if not isinstance(arg, str):
            return
        from gemtui.tools.base import ToolError

        try:
            path = self.workspace.resolve(arg)
        except (ToolError, OSError):  # a path the tool refused anyway
            return
        if self.context_files.discover(path):
            self.chat.system_instruction = self._system_instruction()

    def refresh_context(self) -> ContextFiles:
        """Read the context files again (``/memory refresh``); the next request has them."""
        self.context_files.load()
        self.chat.system_instruction = self._system_instruction()
        return self.context_files

    def add_memory(self, fact: str) -> Path:
        """Append ``fact`` to the user's GEMINI.md (``/memory add``, after approval)."""
        path = self.tool_context.memory_file or config_dir() / "GEMINI.md"
        add_memory(path, fact)
        self.refresh_context()
        return path

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    @property
    def cancel_event(self) -> asyncio.Event | None:
        """The running prompt's cancel signal (None between prompts)."""
        return self._cancel

    def reload_agents(self) -> AgentSet:
        """Read the agent definitions again (``/agents reload``); the next prompt offers them."""
        found = self.agents.load()
        self.agents.announce_problems()
        self.chat.declarations = self._declarations()
        return found

    def reload_commands(self) -> CommandSet:
        """Read the custom command files again (``/commands reload``)."""
        self.commands = load_session_commands(self)
        announce_problems(self, self.commands)
        return self.commands

    async def run_shell(self, line: str) -> bool:
        """``!line``: run it now through policy and approval (no model call); the next
        prompt carries its output. True when it ran."""
        self._cancel = asyncio.Event()
        try:
            return await run_shell_mode(self, line)
        finally:
            self._cancel = None

    async def compress(self) -> None:
        await self.hooks.advise("PreCompress", {"trigger": "manual"})
        await self.executor.compress(force=True)

    def close_background(self) -> None:
        """End the background commands this session started (process groups and all)."""
        self.tool_context.background.terminate()
        if self.mcp is not None:
            self.mcp.manager.terminate()  # its servers too (the TUI ends after its loop)

    def start_mcp(self) -> None:
        """Start the MCP servers in the background (their tools join as each is ready)."""
        if self.mcp is not None and not self.mcp.manager.states():
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # no loop yet: wait_mcp (or the next start) starts them
                return
            self.mcp.start()

    async def wait_mcp(self) -> None:
        """Wait for every MCP server to be ready or failed (headless, before the first call)."""
        if self.mcp is not None:
            self.start_mcp()
            await self.mcp.manager.wait_ready()

    def stop_preparing(self) -> None:
        """Stop a groundwork still running (the session is being replaced or closed)."""
        task, self._preparing = self._preparing, None
        if task is not None and not task.done():
            task.cancel()
        elif task is not None and not task.cancelled():
            task.exception()  # a failure nobody waited for is not reported at exit

    async def aclose(self) -> None:
        self.stop_preparing()
        await drain_hooks()
        await self.hooks.advise("SessionEnd", {"reason": "exit"})
        await self.account.aclose()
        self.close_background()
        if self.mcp is not None:
            await self.mcp.close()
        await self.provider.generator.aclose()
