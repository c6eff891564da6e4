"""Settings: one pydantic tree from TOML files, then environment, then flags.

Order (later wins): ``config.toml`` in the user config dir, ``.gemtui/config.toml`` in the
workspace (only when the folder is trusted: see ``config.trust``), ``GEMTUI_*`` environment
variables, command-line flags. Secrets never live here; they come from the keyring or the
environment (``config.secrets``). Every count, limit and timeout is constrained to a
usable value, so ``shell_timeout = -5`` stops start-up naming the key instead of making
every command "time out".
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gemtui.config.fallback_entries import BUILTIN_PROVIDER_NAMES, entry_problem, split_entry
from gemtui.config.given_fields import validate_given
from gemtui.config.paths import user_config_file, workspace_config_file
from gemtui.config.toml_file import read_toml_file
from gemtui.errors import FatalConfigError
from gemtui.modes import ApprovalMode

__all__ = [
    "AccessibilitySettings",
    "AgentSettings",
    "ApprovalMode",
    "ChatSettings",
    "ContextSettings",
    "GeneralSettings",
    "LimitSettings",
    "LspServerSettings",
    "McpServerSettings",
    "ModelPrice",
    "ModelSettings",
    "NetworkSettings",
    "PromptSettings",
    "ProviderSettings",
    "Settings",
    "SubagentSettings",
    "ToolSettings",
    "UiSettings",
    "WebFetchSettings",
    "load_settings",
    "workspace_config_file",
]

ProviderKind = Literal["gemini", "code-assist", "vertex", "openai", "anthropic"]

Seconds = Annotated[float, Field(gt=0)]
"""A timeout: zero or less would make everything time out at once."""
Delay = Annotated[float, Field(ge=0)]
"""A wait before trying again: zero means at once; a negative wait means nothing."""
Count = Annotated[int, Field(gt=0)]
"""A limit or an attempt count: at least one."""
Share = Annotated[float, Field(gt=0, le=1)]
"""A share of something (the context window): above zero, at most all of it."""


class _Section(BaseModel):
    # built when first validated: a start validates only the sections the files give
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class GeneralSettings(_Section):
    """What runs: provider, model, approval mode, turn limit (``[general]``)."""

    provider: str | None = None
    """Provider name; else the first whose key is set."""
    model: str | None = None
    """Model id; else the provider's default model."""
    approval_mode: ApprovalMode = ApprovalMode.DEFAULT
    """How much runs without asking (``--approval-mode`` and ``--yolo`` win)."""
    max_turns: Annotated[int, Field(ge=-1)] = -1
    """Model turns per prompt; -1 means unbounded."""
    fallback_auto: bool = False
    """Headless runs switch to the provider's ``fallback`` model without asking, as
    ``--fallback`` does (the TUI always asks); off: never silently."""
    enable_notifications: bool = Field(default=False, alias="enableNotifications")
    """A desktop notification (OSC 9 and OSC 777) when a background agent needs you or
    finishes (Gemini CLI's ``general.enableNotifications``; off by default as there)."""
    terminal_bell: bool = Field(default=True, alias="terminalBell")
    """The terminal bell on the same occasions (Gemini CLI's ``general.terminalBell``)."""
    attention_lines: bool = True
    """A line in the agent view (and a toast) on the same occasions."""

    @field_validator("max_turns")
    @classmethod
    def _turns(cls, value: int) -> int:
        if value == 0:  # -1 is "unbounded"; 0 would stop before the first turn
            raise ValueError("must be -1 (unbounded) or at least 1")
        return value


class ProviderSettings(_Section):
    """One provider: its wire format, server, models and prices (``[providers.NAME]``)."""

    kind: ProviderKind
    """Which wire format this provider speaks."""
    base_url: str | None = None
    """The server (an OpenAI-compatible one includes ``/v1``); else the kind's default."""
    models: list[str] = Field(default_factory=list)
    """Offered by ``/model``; the first is the default when none is named."""
    default_model: str | None = None
    """The model used when neither ``-m`` nor ``[general] model`` names one."""
    context_window: Count | None = None
    """Tokens the model takes; else guessed from its name (compression needs it)."""
    fallback: list[str] = Field(default_factory=list, max_length=3)
    """Up to three models to offer, in order, when the current one's quota is exhausted
    or it is overloaded (the TUI asks; headless only with ``--fallback``)."""
    text_tools: bool = False
    """Describe tools in text for models without native function calling."""
    preserve_context: bool = False
    """Text tools: keep the call's JSON in the visible answer."""
    no_think: bool = False
    """Switch thinking off where the model family has a switch, read from the model name
    (Qwen3: ``/no_think`` before each user turn); other models are unaffected."""
    thinking_budget: Annotated[int, Field(ge=0)] = 0
    """Anthropic: tokens of extended thinking for models that support it (Claude 3.7 and
    4); 0 asks for none; the API takes at least 1024. Off by default: a history made
    without thinking (another model, a resumed session) cannot continue a tool loop with it."""
    tool_descriptions: Literal["full", "compact", "auto"] = "auto"
    """How tools are described to the model: in full, compactly (name, first sentence,
    typed parameters), or compactly only when the context window is under 32k tokens."""
    constrained_tools: Literal["auto", "on", "off"] = "auto"
    """OpenAI-compatible servers with grammar decoding (llama.cpp, vLLM): every turn with
    tools is decoded under a grammar built from their schemas, so a call always parses and
    names a real tool (answering is the extra tool ``final_answer``); ``auto``: when the
    server is llama.cpp or vLLM and the tools get the compact description."""
    prices: dict[str, Annotated[float, Field(ge=0)]] = Field(default_factory=dict)
    """USD per million tokens: keys input, output, cached (a typo such as ``in`` is an
    error, never a model priced at $0)."""

    @field_validator("thinking_budget")
    @classmethod
    def _budget(cls, value: int) -> int:
        if 0 < value < 1024:  # the Messages API refuses these (400)
            raise ValueError("must be 0 (no extended thinking) or at least 1024")
        return value

    @field_validator("prices")
    @classmethod
    def _price_keys(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - {"input", "output", "cached"})
        if unknown:  # a typo would leave that part of the price at $0
            raise ValueError(
                f"unknown key {', '.join(map(repr, unknown))}: use input, output, cached"
            )
        return value


class ModelSettings(_Section):
    """The model's fallback across providers (``[model]``)."""

    fallback: list[str] = Field(default_factory=list, max_length=3)
    """Up to three models to offer, in order, when the current one's quota is exhausted
    or it is overloaded: ``MODEL`` (on the provider in use) or ``PROVIDER:MODEL`` (any
    configured or built-in provider); when set it wins over ``[providers.NAME] fallback``.
    The TUI asks; headless switches only with ``--fallback``."""


class ModelPrice(_Section):
    """One model's price, the person's own (``[prices."MODEL"]``): USD per million tokens."""

    input: Annotated[float, Field(ge=0)]
    """Prompt tokens."""
    output: Annotated[float, Field(ge=0)]
    """Answer and thought tokens."""
    cached: Annotated[float, Field(ge=0)] | None = None
    """Cached prompt tokens; else the input price."""


class ChatSettings(_Section):
    """How the conversation is kept within the model's limits (``[chat]``)."""

    compression_threshold: Share = 0.5
    """Compress history when the prompt passes this share of the context window."""
    compression_preserve: Annotated[float, Field(ge=0, lt=1)] = 0.3
    """Share of the most recent history kept verbatim."""
    max_answer_chars: Count = 2_000_000
    """Characters (text, thoughts, call arguments) one model answer may stream before it
    is stopped with an error, keeping what arrived. The longest real answers (128k output
    tokens) are about 500,000 characters; this only stops a stream that never ends."""
    max_output_tokens: Count | None = None
    """Tokens one answer may take; else the provider's usual cap (8,192 for a local
    server, 65,536 for Gemini 2.5, 8,192 for Claude; OpenAI's API keeps its own). Each
    request's bound is this lowered to the room its model's window leaves after the
    prompt, so a server never decodes until its window is full."""
    loop_detection: bool = True
    """Cut an answer that keeps repeating the same passage while it streams (a model
    stuck in a loop), with a notice; off only if it ever cuts a real answer."""


class AgentSettings(_Section):
    """How the agent loop decides it is done (``[agent]``)."""

    next_speaker_check: bool = False
    """After an answer without tool calls, ask (one small JSON-mode call; Flash for
    Gemini providers) whether the model meant to go on, and if so send "Please
    continue.". Off by default, as in Gemini CLI: it costs a call per answer and can
    make the model talk to itself."""


class SubagentSettings(_Section):
    """Delegation to subagents (``[agents]``)."""

    max_depth: int = Field(default=1, ge=0, le=5)
    """How deep delegation may nest: 1 lets the conversation start subagents that cannot
    start their own; 0 offers no subagents at all."""
    max_parallel: int = Field(default=4, ge=1, le=64)
    """How many agents may work at once in one app; starting one more is refused, said."""
    max_spawns: int = Field(default=200, ge=0)
    """How many subagents one session may start in all (foreground and background)."""


class SkillSettings(_Section):
    """Agent Skills (``[skills]``)."""

    disabled: list[str] = Field(default_factory=list)
    """Skills found but not offered to the model (``/skills disable NAME``)."""


class NetworkSettings(_Section):
    """How model calls survive a bad network or a busy server (``[network]``)."""

    max_attempts: Count = 3
    """Attempts per model call, the first included (429, 5xx, transport errors)."""
    initial_delay: Delay = 5.0
    """First backoff wait in seconds; doubles per attempt."""
    max_delay: Delay = 30.0
    """The longest backoff wait in seconds."""
    read_timeout: Seconds = 60.0
    """Seconds without a byte before a stream counts as stalled."""
    stream_retry_delays: list[Delay] = Field(default_factory=lambda: [1.0, 2.0, 4.0])
    """Waits before re-asking after a broken or invalid stream (one retry per entry)."""


class WebFetchSettings(_Section):
    """Where web_fetch may connect and how much it reads (``[tools.web_fetch]``)."""

    allow_private: bool = False
    """Fetch private, loopback, link-local and metadata addresses too (a local dev server)."""
    allow: list[str] = Field(default_factory=list)
    """Host names, addresses or CIDR networks that may be private (``["intranet.lan"]``)."""
    timeout: Seconds = 10.0
    """Seconds one URL may take, redirects and the whole body included."""
    max_bytes: Count = 2_000_000
    """Bytes read of one page; the rest is cut, said so."""
    max_total_bytes: Count = 4_000_000
    """Bytes read of all the pages of one call together; what is over is cut, said so."""
    max_redirects: Annotated[int, Field(ge=0, le=20)] = 5
    """Redirects followed per URL, each checked again."""


class SandboxSettings(_Section):
    """The bubblewrap sandbox (``[tools.sandbox]``); ``-s/--sandbox`` turns it on too."""

    enabled: bool = False
    """Run shell commands under bwrap (exit 52 at start when it is not installed)."""
    network: bool = False
    """Let sandboxed commands reach the network (off: a fresh network namespace)."""
    mcp: bool = True
    """Run stdio MCP servers in the same sandbox."""
    read_only_paths: list[str] = Field(default_factory=list)
    """Paths under home shown read-only inside (e.g. ``~/.gitconfig``)."""


class CheckpointSettings(_Section):
    """Checkpoints of the workspace before a tool changes it (``[checkpoints]``)."""

    enabled: bool = True
    """Take a checkpoint before each call that may change the workspace."""
    max_file_size: Count = 10_000_000
    """Bytes; a bigger file is left out of checkpoints (the notice names it)."""
    keep: Count = 100
    """Newest checkpoints kept per workspace, besides those of recent sessions."""
    keep_days: Annotated[float, Field(ge=0)] = 7.0
    """Every checkpoint of a session seen in this many days is kept too."""


class ToolSettings(_Section):
    """Limits on what tools may do and return (``[tools]``)."""

    shell_timeout: Seconds = 120.0
    """Seconds a foreground shell command may run before it is stopped."""
    output_limit: Count = 30_000
    """Characters of a tool's result the model gets: past it, the head and the tail, and
    the whole output saved in a file (under the data folder) that read_file can page."""
    exclude: list[str] = Field(default_factory=list)
    """Tools never offered to the model (by name)."""
    max_web_searches: Annotated[int, Field(ge=0)] = 200
    """Web searches one session may make, its subagents' included; past it a search is
    refused (the model is told, and the person)."""
    edit_fixer: bool = False
    """When no strategy can place a replace's old_string, ask the model once (a JSON-mode
    call with the file) for the text it meant; the fix is previewed and approved as usual.
    Off by default: one more call per failed edit, slow on a local model."""
    web_fetch: WebFetchSettings = Field(default_factory=WebFetchSettings)
    """web_fetch's network bounds and limits."""
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    """Running shell commands (and stdio MCP servers) under bubblewrap."""
    diagnostics_wait: Seconds = 2.0
    """Seconds an edit waits for its file's diagnostics from a language server; past it
    the result says they were unavailable, and the server keeps working for next time."""
    diagnostics_max: Count = 10
    """Diagnostics one edit's result lists at most (the rest are counted)."""
    find_language_servers: bool = True
    """Use the common language servers found on PATH (pyright or pylsp,
    typescript-language-server, gopls, rust-analyzer) besides the ``[lsp.NAME]`` ones."""


class ContextSettings(_Section):
    """Which context files join the system instruction (``[context]``, Gemini CLI's key)."""

    file_name: str | list[str] = Field(default_factory=list, alias="fileName")
    """More context file names, after GEMINI.md, AGENTS.md and CLAUDE.md
    (``fileName = "CONVENTIONS.md"``)."""

    @field_validator("file_name")
    @classmethod
    def _plain_names(cls, value: str | list[str]) -> str | list[str]:
        for name in [value] if isinstance(value, str) else value:
            if not name or "/" in name or "\\" in name or name in (".", ".."):
                raise ValueError(f"{name!r} must be a plain file name")
        return value

    @property
    def names(self) -> tuple[str, ...]:
        """GEMINI.md, AGENTS.md, CLAUDE.md (a Claude Code project's), then the names added
        here, each once."""
        extra = [self.file_name] if isinstance(self.file_name, str) else self.file_name
        return tuple(dict.fromkeys(["GEMINI.md", "AGENTS.md", "CLAUDE.md", *extra]))


class PromptSettings(_Section):
    """The core system prompt (``[prompt]``)."""

    system_file: str | None = None
    """A Markdown file that replaces gemtui's core prompt (context files still follow);
    relative to the user config folder, ``~`` expanded. ``GEMTUI_SYSTEM_MD`` or
    ``GEMINI_SYSTEM_MD`` (relative to the workspace) win over it. A missing file exits 52."""


class AccessibilitySettings(_Section):
    """How the TUI reaches people who do not see the screen (``[ui.accessibility]``)."""

    screen_reader: bool = Field(default=False, alias="screenReader")
    """A linear, plain-text screen: each event one plain line, no box drawing, no
    spinners (Gemini CLI's ``ui.accessibility.screenReader``; ``--screen-reader`` and
    ``GEMTUI_SCREEN_READER=1`` turn it on too)."""


class UiSettings(_Section):
    """How the TUI looks at start (``[ui]``)."""

    theme: str = "auto"
    """The TUI theme (``/theme`` changes and remembers it); ``auto``: ``gemtui``, or
    ``gemtui-day`` when the terminal says its background is light (``COLORFGBG``)."""
    show_thoughts: bool = True
    """Show the thought pane at start (F2 toggles it)."""
    show_usage: bool = True
    """Show the usage pane at start (F3 toggles it)."""
    vim_mode: bool = False
    """Vim keys in the prompt (``/vim`` toggles and remembers it)."""
    accessibility: AccessibilitySettings = Field(default_factory=AccessibilitySettings)
    """The screen-reader mode."""


class WorkspaceSettings(_Section):
    """More folders the tools may reach (``[workspace]``)."""

    include_directories: list[str] = Field(default_factory=list)
    """Extra workspace roots (relative to the project, ``~`` expanded), as
    ``--include-directories``: tools reach them, and nothing outside every root."""


class LspServerSettings(_Section):
    """A language server (``[lsp.NAME]``): its command and the files it serves."""

    command: Annotated[list[str], Field(min_length=1)]
    """The program and its arguments; it speaks LSP on stdin and stdout."""
    languages: list[str] = Field(default_factory=list)
    """LSP language ids it serves (``python``, ``typescript``, ``go``, ``rust`` ...)."""
    extensions: list[str] = Field(default_factory=list)
    """File name endings it serves (``.py``), besides those of ``languages``."""
    init_options: dict[str, Any] = Field(default_factory=dict)
    """``initializationOptions`` sent to the server as they are."""


class McpServerSettings(BaseModel):
    """An MCP server entry, with Gemini CLI's keys."""

    model_config = ConfigDict(extra="allow", defer_build=True)
    command: str | None = None
    """Stdio transport: the program to start."""
    args: list[str] = Field(default_factory=list)
    """Stdio transport: its arguments."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment for the server (``$VAR`` expanded)."""
    cwd: str | None = None
    """Stdio transport: the folder it starts in."""
    url: str | None = None
    """SSE transport: the server's URL."""
    httpUrl: str | None = None
    """Streamable HTTP transport: the server's URL."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent to the server (credentials are masked everywhere)."""
    timeout: Seconds | None = None
    """Milliseconds to wait for the server (Gemini CLI's key and unit) before it fails."""
    trust: bool = False
    """Run this server's tools without asking."""
    includeTools: list[str] | None = None
    """Only these tools of the server are offered."""
    excludeTools: list[str] | None = None
    """These tools of the server are never offered."""

    @property
    def timeout_seconds(self) -> float | None:
        """``timeout`` in seconds, as the MCP client waits."""
        return None if self.timeout is None else self.timeout / 1000


class BudgetSettings(_Section):
    """Spending caps in USD (``[budget]``): once reached, no further model call starts."""

    session_usd: Annotated[float, Field(gt=0)] | None = None
    """Cap on one session's spend (``--max-budget-usd`` wins)."""
    daily_usd: Annotated[float, Field(gt=0)] | None = None
    """Cap on the day's spend, summed from the store across sessions and agents."""


class LimitSettings(_Section):
    """The providers' rate limits (``[limits]``): when to warn that one is nearly spent."""

    warn_below: Annotated[float, Field(ge=0, le=1)] = 0.10
    """Warn once, before the call, when it would leave less than this share of a limit
    (0 never warns); not again for that limit until it resets."""


class Settings(BaseModel):
    """Everything ``config.toml`` can say, validated: a bad value exits 52 naming the key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)
    general: GeneralSettings = Field(default_factory=GeneralSettings)
    """Provider, model, approval mode and turn limit."""
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    """Named providers (``[providers.NAME]``), built-in ones overridable."""
    model: ModelSettings = Field(default_factory=ModelSettings)
    """The fallback models, on any provider."""
    chat: ChatSettings = Field(default_factory=ChatSettings)
    """Compression and the answer cap."""
    agent: AgentSettings = Field(default_factory=AgentSettings)
    """The next-speaker check."""
    agents: SubagentSettings = Field(default_factory=SubagentSettings)
    """Subagents: how deep delegation may nest."""
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    """Spending caps per session and per day."""
    limits: LimitSettings = Field(default_factory=LimitSettings)
    """When a provider's rate limit is near, say so."""
    skills: SkillSettings = Field(default_factory=SkillSettings)
    """Agent Skills switched off."""
    tools: ToolSettings = Field(default_factory=ToolSettings)
    """Tool timeouts, output limits and exclusions."""
    network: NetworkSettings = Field(default_factory=NetworkSettings)
    """Retries, backoff and timeouts of model calls."""
    ui: UiSettings = Field(default_factory=UiSettings)
    """Theme and panes of the TUI."""
    context: ContextSettings = Field(default_factory=ContextSettings)
    """Context file names."""
    prompt: PromptSettings = Field(default_factory=PromptSettings)
    """The core system prompt's replacement file."""
    mcpServers: dict[str, McpServerSettings] = Field(default_factory=dict)
    """MCP servers (Gemini CLI's key and shape)."""
    lsp: dict[str, LspServerSettings] = Field(default_factory=dict)
    """Language servers whose diagnostics follow edits, before those found on PATH."""
    workspace: WorkspaceSettings = Field(default_factory=WorkspaceSettings)
    """Extra workspace roots."""
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    """Checkpoints before workspace-changing tool calls, and their retention."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Prices by exact model name, over the built-in table and a provider's ``prices``."""

    def model_fallback(self, provider: str) -> list[str]:
        """``[model] fallback`` with each entry as ``PROVIDER:MODEL``, a bare model on
        ``provider`` (the one in use when the list is taken, so the order holds)."""
        split = [self.split_model(entry, provider) for entry in self.model.fallback]
        return [f"{name or provider}:{model}" for name, model in split]

    def split_model(self, entry: str, provider: str) -> tuple[str | None, str]:
        """``PROVIDER:MODEL`` split at its first colon when the prefix names a provider
        (configured, built in, or ``provider``, the one in use): ``ollama:qwen3:8b`` is
        Ollama's ``qwen3:8b``. Else ``(None, entry)``: a model name, colon and all."""
        return split_entry(entry, {*BUILTIN_PROVIDER_NAMES, *self.providers, provider})

    def price_overrides(self) -> dict[str, dict[str, float]]:
        """``[prices."MODEL"]`` as the price table's shape (keys left unsaid omitted)."""
        return {m: p.model_dump(exclude_none=True) for m, p in self.prices.items()}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


_ENV_OVERRIDES = {
    "GEMTUI_PROVIDER": ("general", "provider"),
    "GEMTUI_MODEL": ("general", "model"),
    "GEMTUI_APPROVAL_MODE": ("general", "approval_mode"),
    "GEMTUI_MAX_TURNS": ("general", "max_turns"),
    "GEMTUI_THEME": ("ui", "theme"),
}


def _validate(data: dict[str, Any], path: Path | None) -> Settings:
    """``data`` as ``Settings``, validating only the sections it gives (``given_fields``)."""
    return validate_given(Settings, data, path)


def load_settings(
    workspace: Path | None = None, *, trusted: bool = False, user_file: Path | None = None
) -> Settings:
    """Settings merged from the files and the environment; errors exit 52 naming the file.

    The workspace's ``.gemtui/config.toml`` is read only when ``trusted``: a repository
    must not choose the approval mode or the server that receives the user's key.
    """
    files = [user_file or user_config_file()]
    if workspace is not None and trusted:
        files.append(workspace_config_file(workspace))
    merged: dict[str, Any] = {}
    for path in files:
        data = read_toml_file(path, "settings")
        if not data:
            continue
        _validate(data, path)
        merged = _merge(merged, data)
    for env, (section, key) in _ENV_OVERRIDES.items():
        if os.environ.get(env):
            merged.setdefault(section, {})[key] = os.environ[env]
    return _check_fallback(_validate(merged, None))


def _check_fallback(settings: Settings) -> Settings:
    """``[model] fallback`` entries name providers that exist (checked on the merged
    settings: a provider may be defined in the other file)."""
    known = {*BUILTIN_PROVIDER_NAMES, *settings.providers}
    for entry in settings.model.fallback:
        if problem := entry_problem(entry, known):
            raise FatalConfigError(f"setting 'model.fallback': {problem}")
    return settings
