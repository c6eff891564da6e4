"""Choosing and building the provider for a run: flag, then settings, then whichever key is set.

It lives with the session assembly, not in `providers/`: the look-ups of settings, keyring
and environment are the assembly's, so a provider only speaks its wire format."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct, field

from gemtui.config.secrets import (
    get_secret,
    register_configured_secrets,
    register_stored_secrets,
)
from gemtui.config.settings import ProviderSettings, Settings
from gemtui.errors import FatalAuthenticationError, FatalConfigError
from gemtui.providers.base import ContentGenerator
from gemtui.providers.retry import RetryingGenerator, RetryNotice, RetryPolicy

if TYPE_CHECKING:
    import httpx

    from gemtui.auth.exchange import Tokens

__all__ = [
    "BUILTIN_PROVIDERS",
    "DEFAULT_MODELS",
    "KNOWN_MODELS",
    "ResolvedProvider",
    "context_window_for",
    "fallback_chain",
    "list_models",
    "resolve_provider",
    "vertex_ready",
]

BUILTIN_PROVIDERS: dict[str, ProviderSettings] = {
    "gemini": ProviderSettings(kind="gemini"),
    "code-assist": ProviderSettings(kind="code-assist"),
    "vertex": ProviderSettings(kind="vertex"),
    "openai": ProviderSettings(kind="openai"),
    "anthropic": ProviderSettings(kind="anthropic"),
}

DEFAULT_MODELS = {
    "gemini": "gemini-2.5-pro",
    "code-assist": "gemini-2.5-pro",
    "vertex": "gemini-2.5-pro",
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-5",
    "replay": "replay",
}

KNOWN_MODELS: dict[str, tuple[str, ...]] = {
    "gemini": ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"),
    "code-assist": ("gemini-2.5-pro", "gemini-2.5-flash"),
    "vertex": ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"),
    "openai": ("gpt-4o-mini", "gpt-4o", "gpt-4.1"),
    "anthropic": ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"),
}
"""Offered by ``/model`` for a provider whose settings list no models."""

NO_PROVIDER_HELP = (
    "No model provider is configured. Set one of:\n"
    "  export GEMINI_API_KEY=...        (Gemini API key, https://aistudio.google.com/apikey)\n"
    "  export OPENAI_BASE_URL=http://127.0.0.1:11434/v1   (a local OpenAI-compatible server)\n"
    "  export ANTHROPIC_API_KEY=...\n"
    "  export GOOGLE_GENAI_USE_VERTEXAI=true GOOGLE_CLOUD_PROJECT=... GOOGLE_CLOUD_LOCATION=...\n"
    "                                   (Vertex AI with Application Default Credentials)\n"
    "or sign in with Google (`gemtui auth login`), or store a key in the keyring from the "
    "TUI's welcome screen (run `gemtui`)."
)


class ResolvedProvider(Struct):
    """A provider ready to use: its generator, the model chosen for it and its settings."""

    name: str
    kind: str
    generator: ContentGenerator
    model: str
    """The model chosen when the provider was resolved; the one in use is ``Session.model``
    (the chat holds it: a fallback or ``/model`` changes it there only)."""
    context_window: int
    settings: ProviderSettings = field(default_factory=lambda: ProviderSettings(kind="gemini"))


GEMINI_KINDS = ("gemini", "code-assist", "vertex")
"""Providers that serve Gemini models (built-in fallback chains apply to them)."""


def fallback_chain(provider: ResolvedProvider, model: str, settings: Settings) -> list[str]:
    """Models to try after ``model`` runs out of quota: ``[model] fallback``, else the
    provider's, else for a Gemini Pro model its Flash one (quota fallback unconfigured)."""
    if wanted := settings.model_fallback(provider.name) or provider.settings.fallback:
        return list(wanted)
    if provider.kind in GEMINI_KINDS and "-pro" in model:
        return [model.replace("-pro", "-flash", 1)]
    return []


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
    if _vertex_chosen():
        return "vertex"
    if os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY"):
        return "gemini"
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return "openai"
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if get_secret("gemini-api-key"):
        return "gemini"
    if _signed_in():
        return "code-assist"
    return None


def _signed_in() -> bool:
    """Google tokens are in the keyring (read without refreshing anything)."""
    from gemtui.auth.store import ENTRY

    return bool(get_secret(ENTRY))


def resolve_provider(
    settings: Settings,
    *,
    provider: str | None = None,
    model: str | None = None,
    fake_responses: str | None = None,
    on_retry: Callable[[RetryNotice], None] | None = None,
    retry_policy: RetryPolicy | None = None,
    text_tools: bool = False,
) -> ResolvedProvider:
    """The generator for this run, wrapped in the retry policy; errors exit 41 or 52."""
    import httpx  # noqa: F401 - imported here so `gemtui --version` stays fast

    from gemtui.providers.http import make_client

    register_stored_secrets(f"{n}-api-key" for n in settings.providers)
    register_configured_secrets(settings)
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
    picked = model or settings.general.model or conf.default_model
    chosen = picked or (conf.models[0] if conf.models else DEFAULT_MODELS.get(conf.kind, ""))
    net = settings.network

    def client() -> httpx.AsyncClient:
        """Made only once the provider's settings and key checked out (nothing to leak)."""
        return make_client(net.read_timeout)

    if retry_policy is None:
        retry_policy = RetryPolicy(net.max_attempts, net.initial_delay, net.max_delay)
    inner: ContentGenerator
    if conf.kind == "gemini":
        from gemtui.providers.gemini import GeminiGenerator

        key = _required_key(name, "gemini", "GEMINI_API_KEY (or GOOGLE_API_KEY)", "GOOGLE_API_KEY")
        base = conf.base_url or os.environ.get("GOOGLE_GEMINI_BASE_URL")
        inner = GeminiGenerator(client(), key, base)
    elif conf.kind == "code-assist":
        inner = _code_assist(conf, client)
    elif conf.kind == "vertex":
        inner = _vertex(name, conf, client)
    elif conf.kind == "openai":
        inner = _openai(name, conf, client)
    elif conf.kind == "anthropic":
        inner = _anthropic(name, conf, client)
    else:  # pragma: no cover - settings validation allows only the kinds above
        raise FatalConfigError(f"Provider kind '{conf.kind}' (provider '{name}') is unknown.")
    if text_tools or conf.text_tools:
        from gemtui.providers.text_tools import TextToolsGenerator

        inner = TextToolsGenerator(
            inner,
            preserve_context=bool(getattr(conf, "preserve_context", False)),
            no_think=conf.kind != "openai" and conf.no_think,  # else the inner one does it
        )
    generator = RetryingGenerator(inner, retry_policy, on_retry)
    return ResolvedProvider(
        name, conf.kind, generator, chosen, context_window_for(chosen, conf.context_window), conf
    )


def _openai(
    name: str, conf: ProviderSettings, client: Callable[[], httpx.AsyncClient]
) -> ContentGenerator:
    from gemtui.providers.openai_compat import OpenAICompatGenerator

    base = conf.base_url
    if not base and name not in BUILTIN_PROVIDERS:
        raise FatalConfigError(
            f"{_config_files()}: setting 'providers.{name}.base_url' is missing: provider "
            f"'{name}' has kind = \"openai\" but no server URL. Add to [providers.{name}] "
            'a line such as base_url = "http://127.0.0.1:11434/v1" (include the /v1).'
        )
    base = base or os.environ.get("OPENAI_BASE_URL")
    key = get_secret(f"{name}-api-key", "OPENAI_API_KEY")  # local servers need none
    return OpenAICompatGenerator(
        client(),
        base,
        key,
        name=name,
        no_think=conf.no_think,
        constrained_tools=conf.constrained_tools,
    )


NOT_SIGNED_IN = (
    "You are not signed in with a Google account. Run `gemtui auth login` (or choose "
    '"Sign in with Google" on the TUI\'s welcome screen), or use a Gemini API key: '
    "export GEMINI_API_KEY=..."
)


def _code_assist(
    conf: ProviderSettings, client: Callable[[], httpx.AsyncClient]
) -> ContentGenerator:
    """Gemini through the signed-in Google account; its tokens refresh into the keyring."""
    from gemtui.auth import store
    from gemtui.auth.refresh import TokenSource
    from gemtui.providers.code_assist import CodeAssistGenerator

    tokens = store.load()
    if tokens is None:
        raise FatalAuthenticationError(NOT_SIGNED_IN)
    http = client()

    async def save(fresh: Tokens) -> None:
        store.save(fresh)

    source = TokenSource(tokens, save)
    return CodeAssistGenerator(http, source, endpoint=conf.base_url, email=tokens.email)


def _vertex_chosen() -> bool:
    """Gemini CLI's switch: ``GOOGLE_GENAI_USE_VERTEXAI=true`` (or 1)."""
    return os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("true", "1")


VERTEX_HELP = (
    "Vertex AI needs a project or a key. Either\n"
    "  export GOOGLE_CLOUD_PROJECT=your-project GOOGLE_CLOUD_LOCATION=us-central1\n"
    "with Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS naming a "
    "service-account JSON, or `gcloud auth application-default login`), or express mode:\n"
    "  export GOOGLE_API_KEY=...   (a Vertex AI API key, no project)"
)


def _vertex(
    name: str, conf: ProviderSettings, client: Callable[[], httpx.AsyncClient]
) -> ContentGenerator:
    """Gemini on Vertex AI: the project with ADC when one is set, else express mode."""
    from gemtui.providers.vertex import VertexGenerator, vertex_ids_problem

    base = conf.base_url or os.environ.get("GOOGLE_VERTEX_BASE_URL")
    project = os.environ.get("GOOGLE_CLOUD_PROJECT", "").strip()
    if project:
        from gemtui.auth.adc import AdcTokens

        location = os.environ.get("GOOGLE_CLOUD_LOCATION", "").strip() or "global"
        if problem := vertex_ids_problem(project, location):
            raise FatalAuthenticationError(problem)
        tokens = AdcTokens()
        return VertexGenerator(
            client(), tokens=tokens, project=project, location=location, base_url=base
        )
    key = get_secret(f"{name}-api-key", "GOOGLE_API_KEY")
    if not key:
        raise FatalAuthenticationError(VERTEX_HELP)
    return VertexGenerator(client(), api_key=key, base_url=base)


def _anthropic(
    name: str, conf: ProviderSettings, client: Callable[[], httpx.AsyncClient]
) -> ContentGenerator:
    from gemtui.providers.anthropic import AnthropicGenerator

    key = _required_key(name, "anthropic", "ANTHROPIC_API_KEY")
    base = conf.base_url or os.environ.get("ANTHROPIC_BASE_URL")
    budget = conf.thinking_budget
    return AnthropicGenerator(client(), base, key, name=name, thinking_budget=budget)


_KIND_LABELS = {
    "gemini": ("Gemini", "GEMINI_API_KEY"),
    "anthropic": ("Anthropic", "ANTHROPIC_API_KEY"),
}


def _required_key(name: str, kind: str, how: str, *more_envs: str) -> str:
    """The provider's key: its own keyring entry or the kind's variables, else the kind's
    built-in entry; none is exit 41 saying what to set."""
    label, env = _KIND_LABELS[kind]
    key = get_secret(f"{name}-api-key", env, *more_envs)
    if not key and name != kind:
        key = get_secret(f"{kind}-api-key")
    if not key:
        raise FatalAuthenticationError(
            f"No {label} API key found. Set {how}, or store one in the keyring from the "
            "TUI's welcome screen."
        )
    return key


def _config_files() -> str:
    from gemtui.config.paths import user_config_file

    return f"{user_config_file()} (or .gemtui/config.toml)"


def _usable(name: str) -> bool:
    """A built-in provider is offered by /model only when its key or URL is set."""
    if name == "gemini":
        return bool(get_secret("gemini-api-key", "GEMINI_API_KEY", "GOOGLE_API_KEY"))
    if name == "openai":
        return bool(
            os.environ.get("OPENAI_BASE_URL") or get_secret("openai-api-key", "OPENAI_API_KEY")
        )
    if name == "anthropic":
        return bool(get_secret("anthropic-api-key", "ANTHROPIC_API_KEY"))
    if name == "code-assist":
        return _signed_in()
    if name == "vertex":
        return _vertex_chosen() and bool(
            os.environ.get("GOOGLE_CLOUD_PROJECT") or get_secret("vertex-api-key", "GOOGLE_API_KEY")
        )
    return False


def vertex_ready() -> bool:
    """Vertex AI's variables are set (``GOOGLE_GENAI_USE_VERTEXAI=true`` with a project or an
    express key): the TUI can switch to it without asking anything."""
    return _usable("vertex")


def _own_server(conf: ProviderSettings) -> bool:
    """An OpenAI-compatible provider pointed at a server of one's own (llama.cpp, Ollama,
    vLLM…): OpenAI's cloud model names mean nothing there."""
    if conf.kind != "openai":
        return False
    base = conf.base_url or os.environ.get("OPENAI_BASE_URL") or ""
    return bool(base) and "api.openai.com" not in base


def list_models(settings: Settings) -> list[tuple[str, str]]:
    """(provider, model) pairs of every configured or usable provider, for ``/model``.

    No network: models come from the settings (``models``, ``default_model``,
    ``fallback``), else the provider kind's well-known ones.
    """
    names = [n for n in BUILTIN_PROVIDERS if n in settings.providers or _usable(n)]
    if settings.general.provider and settings.general.provider not in names:
        names.append(settings.general.provider)
    names += [n for n in settings.providers if n not in names]
    out: list[tuple[str, str]] = []
    for name in names:
        conf = settings.providers.get(name) or BUILTIN_PROVIDERS.get(name)
        if conf is None:
            continue
        models = list(conf.models)
        for extra in (conf.default_model, *conf.fallback):
            if extra and extra not in models:
                models.append(extra)
        if not models and not _own_server(conf):
            models = list(KNOWN_MODELS.get(conf.kind, ()))
        if conf.kind in GEMINI_KINDS:
            models.append("auto")  # the router picks Flash or Pro per prompt
        out.extend((name, m) for m in models)
    return out
