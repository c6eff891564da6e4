"""Session: wires provider, chat, tools, scheduler, policy and bus for one conversation."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec.structs import replace

from gemtui.agent import session_hooks, session_lsp, user_commands
from gemtui.agent import session_parts as parts
from gemtui.agent.account_watch import AccountWatch
from gemtui.agent.budget import reported_side_call
from gemtui.agent.cancellable import until_cancelled
from gemtui.agent.context_files import ContextFiles, add_memory
from gemtui.agent.environment_context import environment_context
from gemtui.agent.error_text import ErrorContext
from gemtui.agent.executor import Executor, ExecutorConfig
from gemtui.agent.groundwork import Groundwork
from gemtui.agent.output_cap import session_bound
from gemtui.agent.prices import price_book, price_for
from gemtui.agent.prompt import build_system_instruction, load_core_override
from gemtui.agent.prompt_fit import fit_prompt
from gemtui.agent.prompt_route import PromptRoute
from gemtui.agent.provider_choice import ResolvedProvider, fallback_chain
from gemtui.agent.rate_limit_watch import RateLimitWatch
from gemtui.agent.session_extensions import (
    extension_context_dirs,
    load_extensions,
    with_extension_servers,
)
from gemtui.agent.session_options import SessionOptions
from gemtui.agent.skill_tool import ACTIVATE_SKILL, SessionSkills
from gemtui.agent.subagents import SubagentParent, Subagents
from gemtui.bus import (
    AgentFinished,
    Event,
    EventBus,
    HistoryAppended,
    HistoryReplaced,
    ModelChanged,
    ModelFallback,
    SessionStarted,
)
from gemtui.chat.chat import Chat
from gemtui.chat.history import strip_thought_signatures
from gemtui.config.paths import config_dir, data_dir
from gemtui.config.settings import Settings
from gemtui.hooks.model_hooks import model_hooks
from gemtui.providers.chain import preconnect_chain
from gemtui.providers.retry import RetryingGenerator
from gemtui.providers.tool_guidance import compact_declarations
from gemtui.tools.sandbox_places import HOME_RUN_LATER, home_places
from gemtui.wire import Part

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from gemtui.agent.agent_defs import AgentSet
    from gemtui.commands import CommandSet
    from gemtui.providers.base import ContentGenerator
    from gemtui.scheduler import RuleBook
    from gemtui.tools.background import BackgroundJobs
    from gemtui.tools.file_access import FileAccess
    from gemtui.tools.sandbox import SandboxConfig
    from gemtui.tools.terminal_access import TerminalAccess
    from gemtui.wire import (
        Content,
        FunctionDeclaration,
        GenerateContentRequest,
        GenerateContentResponse,
    )

__all__ = ["Session", "SessionOptions"]


class Session:
    """One conversation: ``await session.send("…")`` runs a prompt through the loop. Front
    ends use its queries, commands and events, never the chat, executor or tool context."""

    chat: Chat

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
        user_commands.add_roots(self.workspace, options.include_directories)
        self.registry = default_registry()
        for name in settings.tools.exclude:
            self.registry.unregister(name)
        self.extensions = load_extensions(self.workspace.root, self.registry)
        self.policy = PolicyEngine(
            parts.workspace_rules(options.workspace, trusted=options.trusted_workspace),
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
        sandbox = parts.sandbox_config(
            settings, self.workspace.root, self.workspace.roots[1:], forced=options.sandbox
        )
        self.mcp = parts.mcp_tools(
            with_extension_servers(settings, self.extensions),
            self.registry,
            self.policy,
            self.bus,
            sandbox,
        )
        ready = lambda: session_lsp.offer_again(self.chat, self._declarations(), self.registry)  # noqa: E731
        self.lsp = session_lsp.language_servers(settings, self.registry, sandbox, options, ready)
        self.tool_context = context = ToolContext(
            workspace=self.workspace,
            shell_timeout=settings.tools.shell_timeout,
            output_limit=settings.tools.output_limit,
            outputs=OutputStore.for_session(data_dir(), self.id),
            model_stream=self._model_stream,
            fetch=parts.fetch_limits(settings),
            sandbox=sandbox,
            edit_fixer=settings.tools.edit_fixer,
            lsp=self.lsp,
            memory_file=config_dir() / "GEMINI.md",
            web_searches=parts.web_search_allowance(settings, self.bus),
        )
        self.hooks = session_hooks.build_hooks(
            self.workspace.root,
            self.bus,
            sandbox,
            trusted=options.trusted_workspace,
            registry=self.registry,
        )
        self.checkpoints = parts.session_checkpoints(settings, self.bus, self.workspace, self.id)
        self.scheduler = ToolScheduler(
            self.registry,
            self.bus,
            self.policy,
            context,
            approval_mode=lambda: self.approval_mode,
            interactive=options.interactive,
            guard=self.checkpoints,
            hooks=session_hooks.tool_hooks(self.hooks),
        )
        self.skills = SessionSkills(  # activate_skill joins before the agents look
            self.workspace.root,
            self.bus,
            self.registry,
            trusted=options.trusted_workspace,
            extensions=self.extensions,
            disabled=settings.skills.disabled,
            excluded=ACTIVATE_SKILL in settings.tools.exclude,
            later=options.at_screen,
            interactive=options.interactive,
        )
        self.agents = Subagents(
            SubagentParent(
                bus=self.bus,
                root=self.workspace.root,
                trusted=options.trusted_workspace,
                interactive=options.interactive,
                max_depth=settings.agents.max_depth,
                max_spawns=settings.agents.max_spawns,
                registry=self.registry,
                policy=self.policy,
                tool_context=context,
                hooks=self.scheduler.hooks,
                checkpoints=self.checkpoints,
                approval_mode=lambda: self.approval_mode,
                chat=lambda: self.chat,
                executor=lambda: self.executor,
            )
        )
        self.agents.load()  # each agent a tool of the registry, before the declarations
        self._on_retry = parts.retry_reporter(self.bus)
        if isinstance(provider.generator, RetryingGenerator):
            provider.generator.on_retry = self._on_retry
        self.account = AccountWatch(self.bus, self.id)
        self.account.bind(provider.generator)
        self.limits = RateLimitWatch(self.bus, settings.limits.warn_below)
        self.limits.bind(provider.generator)
        self.groundwork = Groundwork(
            lambda: fit_prompt(self.provider, self.chat.model, settings.chat.loop_detection),
            lambda limit: environment_context(self.workspace, max_entries=limit),
            fitted=self._fitted,
            gathered=self._instruct,
            interactive=options.interactive,
            connect=(
                (lambda: preconnect_chain(self.provider.generator)) if options.interactive else None
            ),
        )
        self._core_override = load_core_override(settings.prompt.system_file, self.workspace.root)
        """The person's own core prompt (``GEMINI_SYSTEM_MD``, ``[prompt] system_file``)."""
        self._prompted = False  # a prompt was sent: a model chosen later keeps the groundwork
        self.chat = Chat(
            provider.generator,
            model=parts.start_model(provider),
            system_instruction=self._system_instruction(),
            declarations=self._declarations(),
            # signatures belong to the model that made them; a resumed history may come
            # from another one (the active loop gets the "skip" value when needed)
            history=strip_thought_signatures(options.history) if options.history else None,
            generation_config=parts.generation_config(provider),
            retry_delays=options.stream_retry_delays,
            max_answer_chars=settings.chat.max_answer_chars,
            on_history=self._history_changed,
            model_hooks=model_hooks(self.hooks),
            output_bound=session_bound(self),
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
                fallback=tuple(fallback_chain(provider, parts.start_model(provider), settings)),
                router=parts.router_for(provider, provider.model, self._plan_mode),
                prices=price_book(settings, provider.settings.prices),
                error_context=self._error_context,
                stream_loop_detection=settings.chat.loop_detection,
                next_speaker=parts.next_speaker_for(settings, provider),
                agent_hooks=self.hooks,
            ),
        )
        self.bus.subscribe(self._context_just_in_time)
        self.bus.subscribe(self._follow_fallback)
        self._cancel: asyncio.Event | None = None
        self.bus.on_cancel(self.cancel)
        self.commands = self._load_commands()
        self.shell_notes = user_commands.ShellNotes()
        self._route = PromptRoute(
            self.hooks,
            self.bus,
            self.shell_notes,
            self.chat,
            self.executor,
            self.scheduler,
            context,
            self.agents,
            commands=lambda: self.commands,
        )

    def _load_commands(self) -> CommandSet:
        trusted = self.options.trusted_workspace
        return user_commands.load_session_commands(
            self.extensions, self.workspace.root, trusted=trusted
        )

    def _declarations(self) -> list[FunctionDeclaration]:
        mode, generator = self.approval_mode, self.chat_generator
        decls = parts.offered_declarations(self.registry, self.policy, mode, generator)
        return compact_declarations(decls) if self.groundwork.compact else decls

    def _error_context(self) -> ErrorContext:
        return parts.error_context(
            self.settings, self.provider, self.chat.model, self.account.project
        )

    @property
    def chat_generator(self) -> ContentGenerator:
        """The provider's generator (the chat's once it exists: a switch changes it)."""
        chat = getattr(self, "chat", None)
        return chat.generator if chat is not None else self.provider.generator

    def _model_stream(
        self, request: GenerateContentRequest
    ) -> AsyncIterator[GenerateContentResponse]:
        """A one-off request to the current model, for tools (web search, edit fixer)."""
        stream = parts.one_off_stream(self.chat_generator, self.chat.model, request)
        config = self.executor.config
        return reported_side_call(stream, self.bus, self.chat.model, config.budget, config.prices)

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

    # What front ends read and do: never the chat, the executor or the tool context
    # themselves (tests/unit/test_session_surface.py keeps them off those).

    @property
    def history(self) -> tuple[Content, ...]:
        """The conversation so far (a copy: ``rewind_history`` changes it)."""
        return tuple(self.chat.history)

    @property
    def context_window(self) -> int:
        """The window the context line and compression measure against. The executor's
        config holds it (the provider's, once a local server told it)."""
        return self.executor.config.context_window

    @property
    def sandbox(self) -> SandboxConfig | None:
        """The bubblewrap sandbox shell commands run in; None when they are not boxed."""
        return self.tool_context.sandbox

    @property
    def background_jobs(self) -> BackgroundJobs:
        """The background commands this session started (``/tasks``)."""
        return self.tool_context.background

    def rewind_history(self, cut: int) -> tuple[Content, ...]:
        """Keep the first ``cut`` contents (``/rewind``); ``HistoryReplaced`` says so."""
        kept = self.chat.history[:cut]
        self.chat.replace_history(kept, "rewind")
        return tuple(kept)

    def use_client_io(
        self, *, files: FileAccess | None = None, terminals: TerminalAccess | None = None
    ) -> None:
        """Let a front end (an editor over ACP) hold the files and run the commands the
        tools ask for; what is not given stays on disk and in this process."""
        if files is not None:
            self.tool_context.files = files
        if terminals is not None:
            self.tool_context.terminals = terminals

    def permission_rules(self) -> RuleBook:
        """The rules in force, to list and remove (``/permissions``)."""
        return self.policy

    async def terminal_verdict(self, line: str) -> tuple[str, str, str]:
        """What hooks and policy say of handing ``line`` the terminal (``!vim``)."""
        hooks = self.scheduler.hooks
        return await user_commands.terminal_verdict(
            self.registry, self.policy, hooks, self.approval_mode, line
        )

    def typed_line_asks(self, line: str) -> bool:
        """Whether the policy would ask before ``!line`` runs (the read-only offer)."""
        return user_commands.typed_line_asks(self.registry, self.policy, self.approval_mode, line)

    def terminal_command(self, line: str) -> user_commands.TerminalRun:
        """How ``line`` runs with the terminal handed over (in the sandbox under ``-s``)."""
        return user_commands.terminal_command(self.tool_context.sandbox, line)

    def start(self) -> None:
        """Say the session began; a resumed history is published whole, so a subscriber
        (the recorder) knows the conversation without reading the chat."""
        self.bus.emit(
            SessionStarted,
            provider=self.provider.name,
            model=self.chat.model,
            workspace=str(self.workspace.root),
        )
        user_commands.announce_problems(
            self.bus, self.commands, interactive=self.options.interactive
        )
        self.agents.announce_problems()
        session_hooks.fire_session_start(
            self.hooks, self.bus, self.shell_notes, resumed=bool(self.chat.history)
        )
        self.start_mcp()
        with contextlib.suppress(RuntimeError):  # no loop yet: the first prompt does it
            self.prepare()  # the first prompt's groundwork, while the person types it
            self.skills.find_later(self._instruct)  # they join the request after they are found
        if self.options.interactive:  # the usage pane shows the account's tier and quota
            self.account.refresh_soon()
        if self.chat.history:
            self.bus.emit(HistoryReplaced, contents=tuple(self.chat.history), reason="resume")

    async def switch_model(self, model: str, provider: ResolvedProvider | None = None) -> None:
        """Change model (and maybe provider) between prompts, keeping the conversation;
        the executor gets a new config whole, and ``ModelChanged`` tells the views."""
        before, old = self.chat.model, self.provider
        if provider is not None and provider is not old:
            self.provider = provider
            if isinstance(provider.generator, RetryingGenerator):
                provider.generator.on_retry = self._on_retry
            self.account.bind(provider.generator)
            self.limits.bind(provider.generator)
            self.chat.generator = provider.generator
            self.executor.config = parts.config_for_provider(
                self.executor.config, self.settings, provider
            )
            self.executor.last_prompt_tokens = 0
            self.groundwork.redo()  # the new provider's window decides
            await old.generator.aclose()
        if model != before and not self._prompted:  # the groundwork was for the model before
            self.groundwork.redo()
        router = parts.router_for(self.provider, model, self._plan_mode)
        if router is None:
            self.chat.set_model(model)
        self.chat.generation_config = parts.generation_config(self.provider)
        fallback = tuple(fallback_chain(self.provider, self.chat.model, self.settings))
        self.executor.config = replace(self.executor.config, router=router, fallback=fallback)
        if self.groundwork.compact is None:  # done for the new model while the person types
            self.groundwork.start()
        if model != before or self.provider is not old:
            self._model_changed(before, model, old.name)

    def _model_changed(self, before: str, model: str, provider_before: str) -> None:
        self.bus.emit(
            ModelChanged,
            from_model=before,
            to_model=model,
            from_provider=provider_before,
            to_provider=self.provider.name,
            context_window=self.context_window,
            priced=price_for(model, self.executor.config.prices) is not None,
        )

    def _follow_fallback(self, event: Event) -> None:
        """A quota fallback moved the conversation to another model: a change like any
        (to another provider, ``switch_model`` already said so)."""
        moved = isinstance(event, ModelFallback) and event.from_provider != event.to_provider
        if isinstance(event, ModelFallback) and not event.parent_id and not moved:
            self._model_changed(event.from_model, event.to_model, self.provider.name)

    def _plan_mode(self) -> bool:
        return self.approval_mode == "plan"

    def set_approval_mode(self, mode: str) -> None:
        self.approval_mode = mode
        self.chat.declarations = self._declarations()

    def prepare(self) -> asyncio.Task[None]:
        """Start the first prompt's groundwork now, so Enter does not wait for it (call on
        the loop the session runs on; await it to wait for it). Done again only for a new
        provider, or a model chosen before the first prompt (``switch_model``)."""
        return self.groundwork.start()

    def _fitted(self, compact: bool) -> None:
        window = self.provider.context_window  # a local server's, learned just now
        self.executor.config = replace(self.executor.config, context_window=window)
        self._instruct()

    def _instruct(self) -> None:
        self.chat.system_instruction = self._system_instruction()

    async def send(self, prompt: str, *, media: list[Part] | None = None) -> AgentFinished:
        """Run one prompt to the end. Cancel with ``cancel()`` (or ``bus.cancel()``).

        ``media`` (images an editor attached) go to the model after the prompt's text.
        """
        self._prompted = True
        self._cancel = cancel = asyncio.Event()
        try:
            if self.groundwork.needed:
                # A cancel while the groundwork waits (a local server slow to give its
                # window) ends the prompt now; the executor keeps it, unanswered. The
                # groundwork itself goes on, for the next prompt.
                await until_cancelled(self.groundwork.ready(), cancel)
            self.chat.declarations = self._declarations()
            if self.checkpoints is not None:
                self.checkpoints.prompt = prompt
            return await self._route.run(prompt, media, cancel)
        finally:
            self._cancel = None
            if self.options.interactive:  # headless exits now: no look-up it would not show
                self.account.refresh_soon()

    def _system_instruction(self) -> str:
        return build_system_instruction(
            self.workspace.root,
            self.context_files,
            core=self._core_override,
            environment=self.groundwork.environment,
            compact=bool(self.groundwork.compact),
            tools=self.registry.names(),
            skills=self.skills.system_text(),
        )

    def _context_just_in_time(self, event: Event) -> None:
        """A read tool went into a subfolder, or a memory was saved: the next request
        has the context files it brought."""
        if parts.context_grows(event, self.context_files, self.workspace):
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
        self.commands = self._load_commands()
        user_commands.announce_problems(self.bus, self.commands)
        return self.commands

    async def run_shell(self, line: str) -> bool:
        """``!line``: run it now through policy and approval (no model call); the next
        prompt carries its output. True when it ran."""
        self._cancel = asyncio.Event()
        try:
            return await user_commands.run_shell_mode(
                self.scheduler, self.bus, self.shell_notes, line, self._cancel
            )
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
        session_lsp.terminate_servers(self.lsp)

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
        self.groundwork.stop()

    async def aclose(self) -> None:
        self.stop_preparing()
        await self.agents.stop_background()  # they use this session's provider
        await session_hooks.drain_hooks(self.hooks)
        await self.hooks.advise("SessionEnd", {"reason": "exit"})
        await self.account.aclose()
        self.close_background()
        if self.mcp is not None:
            await self.mcp.close()
        await session_lsp.close_servers(self.lsp)
        await self.provider.generator.aclose()
