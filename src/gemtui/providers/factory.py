"""Choosing and building the provider for a run: flag, then settings, then whichever key is set."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from gemtui.config.secrets import get_secret
from gemtui.config.settings import ProviderSettings, Settings
from gemtui.errors import FatalAuthenticationError, FatalConfigError
from gemtui.providers.base import ContentGenerator
from gemtui.providers.retry import RetryingGenerator, RetryNotice, RetryPolicy

__all__ = [
    "BUILTIN_PROVIDERS",
    "DEFAULT_MODELS",
    "ResolvedProvider",
    "context_window_for",
    "resolve_provider",
]

BUILTIN_PROVIDERS: dict[str, ProviderSettings] = {
    "gemini": ProviderSettings(kind="gemini"),
    "code-assist": ProviderSettings(kind="code-assist"),
    "openai": ProviderSettings(kind="openai"),
    "anthropic": ProviderSettings(kind="anthropic"),
}

DEFAULT_MODELS = {
    "gemini": "gemini-2.5-pro",
    "code-assist": "gemini-2.5-pro",
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-5",
    "replay": "replay",
}

NO_PROVIDER_HELP = (
    "No model provider is configured. Set one of:\n"
    "  export GEMINI_API_KEY=...        (Gemini API key, https://aistudio.google.com/apikey)\n"
    "  export OPENAI_BASE_URL=http://127.0.0.1:11434/v1   (a local OpenAI-compatible server)\n"
    "  export ANTHROPIC_API_KEY=...\n"
    "or store a key in the keyring from the TUI's welcome screen (run `gemtui`)."
)


@dataclass
class ResolvedProvider:
    name: str
    kind: str
    generator: ContentGenerator
    model: str
    context_window: int
    settings: ProviderSettings = field(default_factory=lambda: ProviderSettings(kind="gemini"))


def context_window_for(model: str, configured: int | None = None) -> int:
    if configured:
        return configured
    lowered = model.lower()
    if "gemini" in lowered:
        return 1_048_576
    if "claude" in lowered:
        return 200_000
    return 128_000


def _auto_name() -> str | None:
    if os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY"):
        return "gemini"
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return "openai"
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if get_secret("gemini-api-key"):
        return "gemini"
    return None


def resolve_provider(
    settings: Settings,
    *,
    provider: str | None = None,
    model: str | None = None,
    fake_responses: str | None = None,
    on_retry: Callable[[RetryNotice], None] | None = None,
    retry_policy: RetryPolicy | None = None,
) -> ResolvedProvider:
    """The generator for this run, wrapped in the retry policy; errors exit 41 or 52."""
    import httpx  # noqa: F401 - imported here so `gemtui --version` stays fast

    from gemtui.providers.http import make_client

    if fake_responses:
        from gemtui.providers.replay import ReplayGenerator

        gen = ReplayGenerator.from_file(fake_responses)
        chosen = model or settings.general.model or "replay"
        return ResolvedProvider("replay", "replay", gen, chosen, context_window_for(chosen))

    name = provider or settings.general.provider or _auto_name()
    if name is None:
        raise FatalAuthenticationError(NO_PROVIDER_HELP)
    conf = settings.providers.get(name) or BUILTIN_PROVIDERS.get(name)
    if conf is None:
        known = sorted({*BUILTIN_PROVIDERS, *settings.providers})
        raise FatalConfigError(
            f"Unknown provider '{name}'. Known providers: {', '.join(known)}. "
            "Add a [providers.NAME] table with a `kind` to config.toml to define one."
        )
    chosen = model or settings.general.model or conf.default_model
    chosen = chosen or (conf.models[0] if conf.models else DEFAULT_MODELS.get(conf.kind, ""))
    net = settings.network
    client = make_client(net.read_timeout)
    if retry_policy is None:
        retry_policy = RetryPolicy(net.max_attempts, net.initial_delay, net.max_delay)
    inner: ContentGenerator
    if conf.kind == "gemini":
        from gemtui.providers.gemini import GeminiGenerator

        key = get_secret(f"{name}-api-key", "GEMINI_API_KEY", "GOOGLE_API_KEY")
        if not key and name != "gemini":
            key = get_secret("gemini-api-key")
        if not key:
            raise FatalAuthenticationError(
                "No Gemini API key found. Set GEMINI_API_KEY (or GOOGLE_API_KEY), or store one "
                "in the keyring from the TUI's welcome screen."
            )
        base = conf.base_url or os.environ.get("GOOGLE_GEMINI_BASE_URL")
        inner = GeminiGenerator(client, key, base)
    elif conf.kind == "code-assist":
        raise FatalAuthenticationError(
            "Signing in with a Google account (code-assist) is not available yet in this "
            "version of gemtui. Use a Gemini API key instead: export GEMINI_API_KEY=..."
        )
    else:
        raise FatalConfigError(
            f"Provider kind '{conf.kind}' (provider '{name}') is not available yet in this "
            "version of gemtui. Use --provider gemini with GEMINI_API_KEY."
        )
    generator = RetryingGenerator(inner, retry_policy, on_retry)
    return ResolvedProvider(
        name, conf.kind, generator, chosen, context_window_for(chosen, conf.context_window), conf
    )
