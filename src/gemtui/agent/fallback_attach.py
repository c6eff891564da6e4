"""Giving a built session who decides a fallback switch (apart from ``fallback``: this
side knows the session, the executor's config must not)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.agent.fallback import FallbackAsk
    from gemtui.agent.session import Session

__all__ = ["attach_fallback"]


def attach_fallback(session: Session, ask: FallbackAsk | None) -> None:
    """Let ``ask`` decide each switch (None: nobody, so no switch ever). It rides in the
    executor's config, which subagents' configs copy and a model switch keeps."""
    executor = session.executor
    executor.config = replace(executor.config, fallback_ask=ask)
