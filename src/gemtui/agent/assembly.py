"""The one way a session is built: headless, the TUI, its welcome screen and a resume.

``RunOptions`` carries what the person asked for on the command line; ``build_session``
turns it plus the settings into a provider, a ``Session`` and its store attachment.
Every entry point calls it, so a flag that works headless works in the TUI too, and a
later provider (Google sign-in) or tool source (MCP servers) plugs in here and nowhere
else.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a session is built: RunOptions must stay cheap to import
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.agent.session import Session, SessionOptions
    from gemtui.agent.store_attachment import StoreAttachment
    from gemtui.config.settings import Settings
    from gemtui.store import NullRecorder, SessionRecorder, SessionStore

__all__ = ["Assembled", "RunOptions", "build_session", "session_options"]


@dataclass(frozen=True)
class RunOptions:
    """What the person asked for when starting gemtui (flags), whatever the front end."""

    workspace: Path
    provider: str | None = None
    model: str | None = None
    approval_mode: str | None = None
    """``--approval-mode`` / ``--yolo``; None means the settings' mode."""
    max_turns: int | None = None
    """``--max-turns``; None means the settings' limit."""
    text_tools: bool = False
    fake_responses: str | None = None
    resume: str | None = None
    """An id, a prefix or ``latest``: the session starts from that saved history."""
    trust_workspace: bool = False
    """Apply the folder's own .gemtui/ settings even if it is not in the trusted list."""
    interactive: bool = True
    """False headless: a call that needs approval is refused instead of asked."""
    include_directories: tuple[str, ...] = ()
    """``--include-directories``: more workspace roots (added to the settings' ones)."""

    def with_choice(self, provider: str | None, fake_responses: str | None = None) -> RunOptions:
        """The same run with the provider the welcome screen chose (every other flag kept)."""
        return replace(self, provider=provider, fake_responses=fake_responses)


def session_options(
    settings: Settings, options: RunOptions, *, trusted: bool, attachment: StoreAttachment
) -> SessionOptions:
    """The session's options for this run: a flag wins over the settings."""
    from gemtui.agent.session import SessionOptions

    max_turns = options.max_turns
    return SessionOptions(
        workspace=options.workspace,
        approval_mode=options.approval_mode or settings.general.approval_mode,
        interactive=options.interactive,
        max_turns=settings.general.max_turns if max_turns is None else max_turns,
        stream_retry_delays=tuple(settings.network.stream_retry_delays),
        trusted_workspace=trusted,
        include_directories=(*settings.workspace.include_directories, *options.include_directories),
        **attachment.resumed,
    )


@dataclass
class Assembled:
    """A built session with its store; ``record()`` starts saving, ``close()`` ends it."""

    session: Session
    attachment: StoreAttachment
    recorder: SessionRecorder | NullRecorder | None = field(default=None)

    @property
    def store(self) -> SessionStore | None:
        return self.attachment.store

    def record(self) -> SessionRecorder | NullRecorder:
        """Start saving the session (after the views subscribed, so they see every event)."""
        if self.recorder is None:
            self.recorder = self.attachment.record(self.session)
        return self.recorder

    def stop_recording(self) -> None:
        """Persist what is left; the store stays open (a resume records into it again)."""
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None

    def close(self) -> None:
        """Persist what is left and close the store."""
        self.stop_recording()
        if self.attachment.store is not None:
            self.attachment.store.close()


def build_session(
    settings: Settings,
    options: RunOptions,
    *,
    trusted: bool,
    provider: ResolvedProvider | None = None,
    attachment: StoreAttachment | None = None,
) -> Assembled:
    """Provider, store and session for this run; errors are ``FatalError`` (exit codes).

    ``provider`` reuses one already built (a resume keeps the running provider);
    ``attachment`` reuses an open store (it is closed here only if opened here).
    """
    from gemtui.agent.provider_choice import resolve_provider
    from gemtui.agent.session import Session
    from gemtui.agent.store_attachment import attach_store

    opened = attachment is None
    if attachment is None:  # an unknown --resume is said first (42), whatever the provider
        attachment = attach_store(options.resume, options.workspace)
    owned: ResolvedProvider | None = None
    try:
        if provider is None:
            provider = owned = resolve_provider(
                settings,
                provider=options.provider,
                model=options.model,
                fake_responses=options.fake_responses,
                text_tools=options.text_tools,
            )
        if provider.kind != "replay":
            _warm_network_stack()
        # reads the saved policy file: a broken one is a config error
        session = Session(
            settings,
            provider,
            session_options(settings, options, trusted=trusted, attachment=attachment),
        )
    except BaseException:
        if opened and attachment.store is not None:
            attachment.store.close()
        if owned is not None:
            _discard(owned)
        raise
    return Assembled(session, attachment)


_LAZY_NETWORK_MODULES = (
    "anyio._backends._asyncio",
    "anyio.streams.tls",
    "anyio.to_thread",
    "httpcore._async.http11",
    "h11",
)


def _warm_network_stack() -> None:
    """Import what httpx loads only on its first request (anyio's asyncio backend: 20-60 ms).

    The TUI builds the session in a thread after the first frame, so this moves that cost
    off the path between the person's Enter and the request leaving. No connection is
    opened: nothing is sent before the person asks.
    """
    import importlib

    for name in _LAZY_NETWORK_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _discard(provider: ResolvedProvider) -> None:
    """Close a provider that will not be used (its HTTP client never sent anything)."""
    closing = provider.generator.aclose()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        with contextlib.suppress(Exception):
            asyncio.run(closing)
        return
    task = loop.create_task(closing)
    _closing.add(task)
    task.add_done_callback(_closing.discard)


_closing: set[asyncio.Task[None]] = set()
"""Closes under way (held so they are not collected before they ran)."""
