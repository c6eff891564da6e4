"""Session: wires provider, chat, tools, scheduler, policy and bus for one conversation."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gemtui.agent.executor import Executor, ExecutorConfig
from gemtui.agent.prompt import build_system_instruction
from gemtui.agent.prompt_fit import fit_prompt
from gemtui.agent.provider_choice import ResolvedProvider, fallback_chain
from gemtui.bus import (
    AgentFinished,
    EventBus,
    HistoryAppended,
    HistoryReplaced,
    RequestRetrying,
    SessionStarted,
)
from gemtui.chat.chat import Chat
from gemtui.chat.history import strip_thought_signatures
from gemtui.config.paths import config_dir
from gemtui.config.settings import Settings
from gemtui.providers.retry import RetryingGenerator, RetryNotice
from gemtui.providers.tool_guidance import compact_declarations
from gemtui.wire import Content, FunctionDeclaration, GenerationConfig, ThinkingConfig

if TYPE_CHECKING:
    from gemtui.bus import EventBus
    from gemtui.mcp.manager import ServerState
    from gemtui.mcp.tools import McpTools
    from gemtui.scheduler import PolicyEngine, PolicyRule
    from gemtui.tools.registry import ToolRegistry

__all__ = ["Session", "SessionOptions"]


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


def _workspace_rules(options: SessionOptions) -> list[PolicyRule]:
    """The folder's own policy rules, only in a trusted folder (a broken file exits 52)."""
    if not options.trusted_workspace:
        return []
    from gemtui.config.trust import workspace_policy_file
    from gemtui.scheduler import load_policy_file

    return load_policy_file(workspace_policy_file(options.workspace), "workspace")


class Session:
    """One conversation: ``await session.send("…")`` runs a prompt through the loop."""

    def __init__(
        self, settings: Settings, provider: ResolvedProvider, options: SessionOptions
    ) -> None:
        from gemtui.scheduler import PolicyEngine, ToolScheduler
        from gemtui.tools.base import ToolContext
        from gemtui.tools.registry import default_registry
        from gemtui.tools.workspace import Workspace

        self.settings = settings
        self.provider = provider
        self.options = options
        self.id = options.session_id
        self.bus = EventBus(self.id)
        self.approval_mode = options.approval_mode
        self.workspace = Workspace(options.workspace)
        self.registry = default_registry()
        for name in settings.tools.exclude:
            self.registry.unregister(name)
        self.policy = PolicyEngine(
            _workspace_rules(options),
            user_policy_file=config_dir() / "policy.toml",
            workspace_root=self.workspace.root,
            protected_dirs=(config_dir(),),
        )
        self.mcp = _mcp_tools(settings, self.registry, self.policy, self.bus)
        self.tool_context = context = ToolContext(
            workspace=self.workspace,
            shell_timeout=settings.tools.shell_timeout,
            output_limit=settings.tools.output_limit,
        )
        self.scheduler = ToolScheduler(
            self.registry,
            self.bus,
            self.policy,
            context,
            approval_mode=lambda: self.approval_mode,
            interactive=options.interactive,
        )
        if isinstance(provider.generator, RetryingGenerator):
            provider.generator.on_retry = self._on_retry
        self._compact_tools: bool | None = None
        """Whether tools get the compact description; decided before the first prompt."""
        self.chat = Chat(
            provider.generator,
            model=provider.model,
            system_instruction=build_system_instruction(self.workspace.root),
            declarations=self._declarations(),
            # signatures belong to the model that made them; a resumed history may come
            # from another one (the active loop gets the "skip" value when needed)
            history=strip_thought_signatures(options.history) if options.history else None,
            generation_config=GenerationConfig(
                thinking_config=ThinkingConfig(include_thoughts=True)
            )
            if provider.generator.capabilities.thinking_config
            else None,
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
                fallback=fallback_chain(provider, provider.model),
                prices=dict(provider.settings.prices),
            ),
        )
        self.chat.on_history = self._history_changed
        self._cancel: asyncio.Event | None = None
        self.bus.on_cancel(self.cancel)

    def _declarations(self) -> list[FunctionDeclaration]:
        from gemtui.scheduler import READ_ONLY_KINDS

        denied = set(self.policy.denied_tool_names(self.registry.names(), self.approval_mode))
        if self.approval_mode == "plan":  # plan mode: the model is offered read-only tools only
            denied |= {t.name for t in self.registry.tools() if t.kind not in READ_ONLY_KINDS}
        decls = self.registry.declarations(exclude=denied)
        return compact_declarations(decls) if self._compact_tools else decls

    def _on_retry(self, notice: RetryNotice) -> None:
        self.bus.emit(
            RequestRetrying,
            attempt=notice.attempt,
            max_attempts=notice.max_attempts,
            wait=notice.wait,
            message=str(notice.error),
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
        self.start_mcp()
        if self.chat.history:
            self.bus.emit(HistoryReplaced, contents=tuple(self.chat.history), reason="resume")

    async def switch_model(self, model: str, provider: ResolvedProvider | None = None) -> None:
        """Change model (and maybe provider) between prompts, keeping the conversation."""
        if provider is not None and provider is not self.provider:
            old = self.provider
            self.provider = provider
            if isinstance(provider.generator, RetryingGenerator):
                provider.generator.on_retry = self._on_retry
            self.chat.generator = provider.generator
            self.executor.config.context_window = provider.context_window
            self.executor.config.prices = dict(provider.settings.prices)
            self.executor.last_prompt_tokens = 0
            self._compact_tools = None  # the new provider's window decides
            await old.generator.aclose()
        self.chat.set_model(model)
        self.executor.config.fallback = fallback_chain(self.provider, model)

    def set_approval_mode(self, mode: str) -> None:
        self.approval_mode = mode
        self.chat.declarations = self._declarations()

    async def send(self, prompt: str) -> AgentFinished:
        """Run one prompt to the end. Cancel with ``cancel()`` (or ``bus.cancel()``)."""
        if self._compact_tools is None:
            self._compact_tools = await fit_prompt(self.provider, self.chat.model)
            self.executor.config.context_window = self.provider.context_window
        self.chat.declarations = self._declarations()
        self._cancel = asyncio.Event()
        try:
            return await self.executor.run(prompt, cancel=self._cancel)
        finally:
            self._cancel = None

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    async def compress(self) -> None:
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

    async def aclose(self) -> None:
        self.close_background()
        if self.mcp is not None:
            await self.mcp.close()
        await self.provider.generator.aclose()


def _mcp_tools(
    settings: Settings, registry: ToolRegistry, policy: PolicyEngine, bus: EventBus
) -> McpTools | None:
    """The session's MCP servers (not started yet), publishing each state change."""
    if not settings.mcpServers:
        return None
    from gemtui.bus.events import McpServerChanged
    from gemtui.mcp.tools import McpTools

    def changed(state: ServerState) -> None:
        bus.emit(
            McpServerChanged,
            server=state.name,
            status=str(state.status),
            transport=state.transport,
            tools=tuple(t.name for t in state.tools),
            reason=state.reason,
        )

    return McpTools(settings.mcpServers, registry, policy, on_change=changed)
