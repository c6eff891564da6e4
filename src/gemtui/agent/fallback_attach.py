"""Giving a built session who decides a fallback switch, and the way to another provider
(apart from ``fallback``: this side knows the session, the executor's config must not)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

if TYPE_CHECKING:
    from gemtui.agent.fallback import FallbackAsk, ProviderHop
    from gemtui.agent.session import Session

__all__ = ["attach_fallback"]


def attach_fallback(session: Session, ask: FallbackAsk | None) -> None:
    """Let ``ask`` decide each switch (None: nobody, so no switch ever). It rides in the
    executor's config, which subagents' configs copy and a model switch keeps, with the
    session's way to another provider (``[model] fallback = ["PROVIDER:MODEL"]``)."""
    executor = session.executor
    executor.config = replace(executor.config, fallback_ask=ask, fallback_hop=_hop(session))


def _hop(session: Session) -> ProviderHop:
    """Build the offered provider from the settings (its key from its settings, keyring
    or environment, as at start-up) and move the conversation there as ``/model`` does;
    the prompt then goes on down the same fallback list."""
    from gemtui.agent.fallback import ProviderHop
    from gemtui.agent.provider_choice import BUILTIN_PROVIDERS, ResolvedProvider, resolve_provider

    def build(name: str, model: str) -> ResolvedProvider:
        return resolve_provider(session.settings, provider=name, model=model)

    async def use(model: str, provider: ResolvedProvider) -> None:
        chain = session.executor.config.fallback
        await session.switch_model(model, provider)
        session.executor.config = replace(session.executor.config, fallback=chain)

    known = frozenset({*BUILTIN_PROVIDERS, *session.settings.providers})
    return ProviderHop(lambda: session.provider.name, known, build, use)
