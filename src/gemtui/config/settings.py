"""Settings: one pydantic tree from TOML files, then environment, then flags.

Order (later wins): ``config.toml`` in the user config dir, ``.gemtui/config.toml`` in the
workspace, ``GEMTUI_*`` environment variables, command-line flags. Secrets never live
here; they come from the keyring or the environment (``config.secrets``).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gemtui.config.paths import user_config_file
from gemtui.errors import FatalConfigError

__all__ = [
    "ApprovalMode",
    "ChatSettings",
    "GeneralSettings",
    "McpServerSettings",
    "NetworkSettings",
    "ProviderSettings",
    "Settings",
    "ToolSettings",
    "UiSettings",
    "load_settings",
]

ApprovalMode = Literal["default", "auto_edit", "plan", "yolo"]
ProviderKind = Literal["gemini", "code-assist", "openai", "anthropic"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class GeneralSettings(_Section):
    provider: str | None = None
    """Provider name; else the first whose key is set."""
    model: str | None = None
    """Model id; else the provider's default model."""
    approval_mode: ApprovalMode = "default"
    max_turns: int = -1
    """Model turns per prompt; -1 means unbounded."""


class ProviderSettings(_Section):
    kind: ProviderKind
    """Which wire format this provider speaks."""
    base_url: str | None = None
    models: list[str] = Field(default_factory=list)
    default_model: str | None = None
    context_window: int | None = None
    fallback: list[str] = Field(default_factory=list)
    """Models to try, in order, when the current one hits a persistent 429."""
    text_tools: bool = False
    """Describe tools in text for models without native function calling."""
    preserve_context: bool = False
    """Text tools: keep the call's JSON in the visible answer."""
    no_think: bool = False
    """Text tools: prepend the model family's no-thinking switch to user turns."""
    prices: dict[str, float] = Field(default_factory=dict)
    """USD per million tokens: keys input, output, cached."""


class ChatSettings(_Section):
    compression_threshold: float = 0.5
    """Compress history when the prompt passes this share of the context window."""
    compression_preserve: float = 0.3
    """Share of the most recent history kept verbatim."""
    stream_retries: int = 4


class NetworkSettings(_Section):
    max_attempts: int = 3
    """Attempts per model call, the first included (429, 5xx, transport errors)."""
    initial_delay: float = 5.0
    """First backoff wait in seconds; doubles per attempt."""
    max_delay: float = 30.0
    read_timeout: float = 60.0
    """Seconds without a byte before a stream counts as stalled."""
    stream_retry_delays: list[float] = Field(default_factory=lambda: [1.0, 2.0, 4.0])
    """Waits before re-asking after a broken or invalid stream (one retry per entry)."""


class ToolSettings(_Section):
    shell_timeout: float = 120.0
    output_limit: int = 30_000
    exclude: list[str] = Field(default_factory=list)


class UiSettings(_Section):
    theme: str = "gemtui-dark"
    show_thoughts: bool = True
    show_usage: bool = True


class McpServerSettings(BaseModel):
    """An MCP server entry, with Gemini CLI's keys."""

    model_config = ConfigDict(extra="allow")
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    httpUrl: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = None
    trust: bool = False
    includeTools: list[str] | None = None
    excludeTools: list[str] | None = None


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    general: GeneralSettings = Field(default_factory=GeneralSettings)
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    tools: ToolSettings = Field(default_factory=ToolSettings)
    network: NetworkSettings = Field(default_factory=NetworkSettings)
    ui: UiSettings = Field(default_factory=UiSettings)
    mcpServers: dict[str, McpServerSettings] = Field(default_factory=dict)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise FatalConfigError(
            f"{path}: malformed TOML: {exc}. Fix the syntax at that line or move the file aside."
        ) from exc
    except OSError as exc:
        raise FatalConfigError(f"{path}: cannot read settings: {exc.strerror}") from exc


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


def _describe(err: ValidationError, path: Path | None) -> str:
    first = err.errors()[0]
    key = ".".join(str(p) for p in first["loc"])
    where = f"{path}: " if path else ""
    hint = {
        "extra_forbidden": "remove it or check its spelling",
        "literal_error": "use one of the allowed values",
        "missing": "add it",
    }.get(first["type"], "fix its value")
    return f"{where}setting '{key}': {first['msg']} ({hint})"


def load_settings(workspace: Path | None = None, *, user_file: Path | None = None) -> Settings:
    """Settings merged from both files and the environment; errors exit 52 naming the file."""
    user = user_file or user_config_file()
    files = [user]
    if workspace is not None:
        files.append(workspace / ".gemtui" / "config.toml")
    merged: dict[str, Any] = {}
    for path in files:
        data = _read_toml(path)
        if not data:
            continue
        try:
            Settings.model_validate(data)
        except ValidationError as exc:
            raise FatalConfigError(_describe(exc, path)) from exc
        merged = _merge(merged, data)
    for env, (section, key) in _ENV_OVERRIDES.items():
        if os.environ.get(env):
            merged.setdefault(section, {})[key] = os.environ[env]
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise FatalConfigError(_describe(exc, None)) from exc
