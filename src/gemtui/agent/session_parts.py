"""The parts a session is built from, each read from the settings: the folder's policy
rules, the sandbox, checkpoints, web_fetch's bounds, the first model and its router, the
next-speaker check, and the MCP servers (kept apart so ``session`` reads as the session)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gemtui.config.paths import config_dir, data_dir
from gemtui.config.settings import Settings
from gemtui.wire import (
    FunctionDeclaration,
    GenerateContentRequest,
    GenerateContentResponse,
    GenerationConfig,
    ThinkingConfig,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from gemtui.agent.checkpointing import SessionCheckpoints
    from gemtui.agent.context_files import ContextFiles
    from gemtui.agent.error_text import ErrorContext
    from gemtui.agent.executor import ExecutorConfig
    from gemtui.agent.next_speaker import NextSpeakerCheck
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.agent.router import ModelRouter
    from gemtui.bus import Event, EventBus
    from gemtui.mcp.manager import ServerState
    from gemtui.mcp.tools import McpTools
    from gemtui.providers.base import ContentGenerator
    from gemtui.providers.retry import RetryNotice
    from gemtui.scheduler import PolicyEngine, PolicyRule
    from gemtui.tools.allowance import Allowance
    from gemtui.tools.netguard import FetchLimits
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.sandbox import SandboxConfig
    from gemtui.tools.workspace import Workspace

MEMORY_TOOL = "save_memory"
"""Its success changes the person's GEMINI.md: the next request reads it again."""
_READING_TOOLS = frozenset({"read_file", "list_directory", "glob", "grep_search"})
_PATH_ARGS = ("file_path", "dir_path", "path")
"""Tools whose path argument brings a subfolder's context files in (just in time)."""

__all__ = [
    "config_for_provider",
    "context_grows",
    "error_context",
    "fetch_limits",
    "generation_config",
    "linked_git_dirs",
    "mcp_tools",
    "next_speaker_for",
    "one_off_stream",
    "retry_reporter",
    "router_for",
    "sandbox_config",
    "session_checkpoints",
    "start_model",
    "web_search_allowance",
    "workspace_rules",
]


GROUNDED_TOOL = "google_web_search"
"""Offered only when the provider's API has Google Search grounding."""


def offered_declarations(
    registry: ToolRegistry,
    policy: PolicyEngine,
    approval_mode: str,
    generator: ContentGenerator,
) -> list[FunctionDeclaration]:
    """What the model is offered: no tool a rule refuses outright, read-only ones in plan
    mode, web search only where the API can ground (the session's and its subagents')."""
    from gemtui.scheduler import READ_ONLY_KINDS

    denied = set(policy.denied_tool_names(registry.names(), approval_mode))
    if approval_mode == "plan":
        denied |= {t.name for t in registry.tools() if t.kind not in READ_ONLY_KINDS}
    if not generator.capabilities.grounding:
        denied.add(GROUNDED_TOOL)
    return registry.declarations(exclude=denied)


def workspace_rules(workspace: Path, *, trusted: bool) -> list[PolicyRule]:
    """The folder's own policy rules, only in a trusted folder (a broken file exits 52)."""
    if not trusted:
        return []
    from gemtui.config.trust import workspace_policy_file
    from gemtui.scheduler import load_policy_file

    return load_policy_file(workspace_policy_file(workspace), "workspace")


def sandbox_config(
    settings: Settings, workspace: Path, extra_roots: list[Path], *, forced: bool = False
) -> SandboxConfig | None:
    """The bubblewrap sandbox when ``-s`` (``forced``, this session's option, never the
    process environment) or ``[tools.sandbox] enabled`` asks (exit 52 without bwrap)."""
    import os

    box = settings.tools.sandbox
    if not (box.enabled or forced):
        return None
    from gemtui.config.paths import log_dir
    from gemtui.tools.sandbox import SandboxConfig, require_bwrap

    require_bwrap()
    hidden = [config_dir(), data_dir(), log_dir()]
    if os.environ.get("GEMTUI_HOME"):
        hidden.append(Path(os.environ["GEMTUI_HOME"]).expanduser())
    return SandboxConfig(
        workspace=workspace,
        network=box.network,
        read_only_paths=(*box.read_only_paths, *linked_git_dirs(workspace)),
        hidden=tuple(hidden),
        writable=tuple(extra_roots),
    )


def linked_git_dirs(workspace: Path) -> tuple[str, ...]:
    """The shared git folder of a linked worktree (``-w``: its ``.git`` is a file naming a
    folder under the main checkout's ``.git``), so git works in the sandbox: read-only,
    since its hooks and config run code outside the sandbox later."""
    dot = workspace / ".git"
    try:
        text = dot.read_text(encoding="utf-8", errors="replace").strip() if dot.is_file() else ""
    except OSError:
        return ()
    if not text.startswith("gitdir:"):
        return ()
    gitdir = (workspace / text.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        common = gitdir
    return tuple(dict.fromkeys(str(p) for p in (common, gitdir) if p.is_dir()))


def session_checkpoints(
    settings: Settings, bus: EventBus, workspace: Workspace, session_id: str
) -> SessionCheckpoints | None:
    """Checkpoints of every root a tool can write (the further roots read at each call,
    so a root added by ``/directory add`` is covered from its first change)."""
    if not settings.checkpoints.enabled:
        return None
    from gemtui.agent.checkpointing import SessionCheckpoints

    return SessionCheckpoints(
        bus, workspace.root, settings.checkpoints, session_id, lambda: workspace.roots[1:]
    )


def fetch_limits(settings: Settings) -> FetchLimits:
    """web_fetch's bounds from ``[tools.web_fetch]``."""
    from gemtui.tools.netguard import FetchLimits

    wf = settings.tools.web_fetch
    return FetchLimits(
        allow_private=wf.allow_private,
        allow=tuple(wf.allow),
        timeout=wf.timeout,
        max_bytes=wf.max_bytes,
        max_total_bytes=wf.max_total_bytes,
        max_redirects=wf.max_redirects,
    )


def generation_config(provider: ResolvedProvider) -> GenerationConfig | None:
    """Thoughts asked for where the request has the field (Gemini's ``includeThoughts``);
    Claude's extended thinking is the Anthropic provider's (its ``thinking_budget``)."""
    if provider.generator.capabilities.thinking_config:
        return GenerationConfig(thinking_config=ThinkingConfig(include_thoughts=True))
    return None


def start_model(provider: ResolvedProvider) -> str:
    """The model of the first request: the chosen one, or for ``auto`` the kind's default
    (the router picks per prompt from there)."""
    from gemtui.agent.provider_choice import DEFAULT_MODELS
    from gemtui.agent.router import AUTO

    if provider.model != AUTO:
        return provider.model
    return DEFAULT_MODELS.get(provider.kind, provider.model)


def next_speaker_for(settings: Settings, provider: ResolvedProvider) -> NextSpeakerCheck | None:
    """The next-speaker check when asked for: on Flash for Gemini providers (as Gemini
    CLI does), on the conversation's own model elsewhere."""
    if not settings.agent.next_speaker_check:
        return None  # its module is not even loaded (it is off by default)
    from gemtui.agent.next_speaker import NextSpeakerCheck
    from gemtui.agent.provider_choice import GEMINI_KINDS

    if provider.kind in GEMINI_KINDS:
        return NextSpeakerCheck(provider.generator, "gemini-2.5-flash", thinking_off=True)
    return NextSpeakerCheck(provider.generator)


def router_for(
    provider: ResolvedProvider, model: str, plan_mode: Callable[[], bool]
) -> ModelRouter | None:
    """A router when ``model`` is ``auto``; only Gemini providers have Flash and Pro."""
    from gemtui.agent.provider_choice import GEMINI_KINDS
    from gemtui.agent.router import AUTO, ModelRouter
    from gemtui.errors import FatalInputError

    if model != AUTO:
        return None
    if provider.kind not in GEMINI_KINDS:
        raise FatalInputError(
            f"-m auto routes between Gemini Flash and Pro models; the {provider.name} "
            "provider has no such pair. Name a model instead (-m NAME, /model NAME)."
        )
    return ModelRouter(provider.generator, plan_mode=plan_mode)


def mcp_tools(
    settings: Settings,
    registry: ToolRegistry,
    policy: PolicyEngine,
    bus: EventBus,
    sandbox: SandboxConfig | None = None,
) -> McpTools | None:
    """The session's MCP servers (not started yet), publishing each state change; stdio
    servers start in ``sandbox`` when ``[tools.sandbox] mcp`` asks."""
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

    boxed = sandbox if settings.tools.sandbox.mcp else None
    return McpTools(settings.mcpServers, registry, policy, on_change=changed, sandbox=boxed)


def retry_reporter(bus: EventBus) -> Callable[[RetryNotice], None]:
    """Publishes each retry of a request on ``bus`` (the views say what is retried)."""
    from urllib.parse import urlsplit

    from gemtui.bus import RequestRetrying
    from gemtui.errors import NothingListeningError

    def report(notice: RetryNotice) -> None:
        error = notice.error
        target = ""
        if isinstance(error, NothingListeningError):
            target = f"nothing on {urlsplit(error.url).netloc}"
        bus.emit(
            RequestRetrying,
            attempt=notice.attempt,
            max_attempts=notice.max_attempts,
            wait=notice.wait,
            message=str(notice.error),
            target=target,
        )

    return report


def context_grows(event: Event, files: ContextFiles, workspace: Workspace) -> bool:
    """Whether ``event`` brought context files in: a read tool went into a subfolder (its
    files join the next request), or a memory was saved (GEMINI.md is read back)."""
    from gemtui.bus import ToolCallState, ToolCallStateChanged

    if not (isinstance(event, ToolCallStateChanged) and event.call.state == ToolCallState.SUCCESS):
        return False
    if event.call.name == MEMORY_TOOL:
        found = [f.path for f in files.files if f.scope == "subfolder"]
        files.load()
        for path in found:  # keep what reading subfolders brought in
            files.discover(path)
        return True
    if event.call.name not in _READING_TOOLS:
        return False
    arg = next((event.call.args.get(k) for k in _PATH_ARGS if event.call.args.get(k)), None)
    if not isinstance(arg, str):
        return False
    from gemtui.tools.base import ToolError

    try:
        path = workspace.resolve(arg)
    except (ToolError, OSError):  # a path the tool refused anyway
        return False
    return bool(files.discover(path))


def error_context(
    settings: Settings, provider: ResolvedProvider, model: str, project: str
) -> ErrorContext:
    """Who was asked for what, so a failed call is explained with its next step."""
    from gemtui.agent.error_text import ErrorContext
    from gemtui.agent.provider_choice import list_models

    models = tuple(m for p, m in list_models(settings) if p == provider.name)
    policy = getattr(provider.generator, "policy", None)
    return ErrorContext(
        provider=provider.kind,
        model=model,
        models=models,
        project=project,
        attempts=getattr(policy, "max_attempts", 1),
    )


def one_off_stream(
    generator: ContentGenerator, model: str, request: GenerateContentRequest
) -> AsyncIterator[GenerateContentResponse]:
    """A one-off request to the conversation's model, for tools (google_web_search)."""
    from gemtui.tools.base import ToolError

    searches = any(t.google_search is not None for t in request.tools or [])
    if searches and not generator.capabilities.grounding:
        raise ToolError(
            f"Web search needs Google Search grounding, which the {generator.name} "
            "provider does not offer; use a Gemini provider."
        )
    return generator.stream(request, model=model)


def web_search_allowance(settings: Settings, bus: EventBus) -> Allowance:
    """The session's web searches, its subagents' included (``[tools] max_web_searches``);
    reaching the cap is said once, as a warning."""
    from gemtui.bus import ErrorOccurred
    from gemtui.tools.allowance import Allowance

    return Allowance(
        settings.tools.max_web_searches,
        "web searches",
        "[tools] max_web_searches",
        on_reached=lambda said: bus.emit(ErrorOccurred, message=said, kind="warning"),
    )


def config_for_provider(
    config: ExecutorConfig, settings: Settings, provider: ResolvedProvider
) -> ExecutorConfig:
    """The executor's config once ``provider`` answers: its window, prices and
    next-speaker check; the budget counts side calls at its prices from now on."""
    from msgspec.structs import replace

    from gemtui.agent.prices import price_book

    prices = price_book(settings, provider.settings.prices)
    if (budget := config.budget) is not None:
        budget.prices, budget.provider = prices, provider.name
    return replace(
        config,
        context_window=provider.context_window,
        prices=prices,
        next_speaker=next_speaker_for(settings, provider),
    )
