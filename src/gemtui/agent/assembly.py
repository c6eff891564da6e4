"""The one way a session is built: headless, the TUI, its welcome screen, ACP and a resume.

``RunOptions`` carries what the person asked for on the command line, built once by the
CLI and handed whole to every front end; ``trusted_run`` decides the folder's trust and
the settings it lets apply; ``build_session`` turns options plus settings into a
provider, a ``Session`` and its store attachment. Every entry point takes these steps,
so a flag that works headless works in the TUI and over ACP too, and a later provider
(Google sign-in) or tool source (MCP servers) plugs in here and nowhere else. Nothing
here reads or writes the process environment for a flag: two runs in one process stay
apart.
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
    from gemtui.agent.store_attachment import LaterRecorder, StoreAttachment
    from gemtui.config.settings import Settings
    from gemtui.config.trust import WorkspaceTrust
    from gemtui.store import NullRecorder, SessionRecorder, SessionStore

__all__ = [
    "Assembled",
    "RunOptions",
    "TrustedRun",
    "build_session",
    "session_options",
    "trusted_run",
]


@dataclass(frozen=True)
class RunOptions:
    """What the person asked for when starting gemtui (flags), whatever the front end.

    The CLI builds one and hands it whole to the front end it starts: a new flag is a
    field here, set by the parser and read where it is used.
    """

    workspace: Path
    prompt: str | None = None
    """The prompt: the one ``-p`` runs (stdin joined), or the one the TUI opens with."""
    output_format: str = "text"
    """``--output-format`` of a headless run: text, json or stream-json."""
    provider: str | None = None
    model: str | None = None
    approval_mode: str | None = None
    """``--approval-mode`` / ``--yolo``; None means the settings' mode."""
    max_turns: int | None = None
    """``--max-turns``; None means the settings' limit."""
    max_budget_usd: float | None = None
    """``--max-budget-usd``: this session's spending cap (over ``[budget] session_usd``)."""
    fallback: bool = False
    """``--fallback``: switch to the provider's fallback model without asking."""
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
    sandbox: bool = False
    """``-s``: shell commands run under bubblewrap even if the settings do not ask."""
    screen_reader: bool = False
    """``--screen-reader``: the TUI's linear plain-text screen (the front ends without a
    screen ignore it)."""

    def with_choice(self, provider: str | None, fake_responses: str | None = None) -> RunOptions:
        """The same run with the provider the welcome screen chose (every other flag kept)."""
        return replace(self, provider=provider, fake_responses=fake_responses)


def session_options(
    settings: Settings,
    options: RunOptions,
    *,
    trusted: bool,
    attachment: StoreAttachment,
    at_screen: bool = False,
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
        sandbox=options.sandbox,
        at_screen=at_screen,
        **attachment.resumed,
    )


@dataclass
class Assembled:
    """A built session with its store; ``record()`` starts saving, ``close()`` ends it."""

    session: Session
    attachment: StoreAttachment
    recorder: SessionRecorder | NullRecorder | LaterRecorder | None = field(default=None)

    @property
    def store(self) -> SessionStore | None:
        return self.attachment.store

    def record(self) -> SessionRecorder | NullRecorder | LaterRecorder:
        """Start saving the session (after the views subscribed, so they see every event)."""
        if self.recorder is None:
            self.recorder = self.attachment.record(self.session)
        return self.recorder

    def stop_recording(self) -> None:
        """Persist what is left; the store stays open (a resume records into it again).
        A store still opening is opened now, so what waited is written (on exit)."""
        self.attachment.opened()
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None

    def close(self) -> None:
        """Persist what is left and close the store."""
        self.stop_recording()
        if self.attachment.store is not None:
            self.attachment.store.close()


@dataclass(frozen=True)
class TrustedRun:
    """A run's options with its folder's trust decided: the step every front end takes
    between the command line and ``build_session``.

    The trust decision carries the content check (``config.trust``): a trusted folder
    whose code-running files changed is undecided again. The TUI asks about an undecided
    folder (``answered``); headless and ACP runs leave its settings out and say so
    (``notice``); ``--trust-workspace`` accepts it as it is now.
    """

    options: RunOptions
    trust: WorkspaceTrust

    @property
    def trusted(self) -> bool:
        """Whether the folder's own .gemtui/ settings, policy, hooks and commands apply."""
        return self.trust.trusted

    def notice(self, how_to_trust: str) -> str | None:
        """What this run leaves out of the folder and why (None: nothing is left out)."""
        return self.trust.notice(how_to_trust)

    def answered(self, trusted: bool) -> TrustedRun:
        """The same run once the person answered the trust question."""
        return replace(self, trust=replace(self.trust, trusted=trusted, undecided=False))

    def settings(self) -> Settings:
        """The user's settings, with the folder's own only if trusted (exit 52 if broken)."""
        from gemtui.config.settings import load_settings

        return load_settings(self.options.workspace, trusted=self.trusted)

    def build(self, settings: Settings | None = None, *, at_screen: bool = False) -> Assembled:
        """The session for this run (``settings`` None: read now, as trust allows);
        ``at_screen``: a person is about to type (``SessionOptions.at_screen``)."""
        if settings is None:
            settings = self.settings()
        return build_session(settings, self.options, trusted=self.trusted, at_screen=at_screen)


def trusted_run(options: RunOptions) -> TrustedRun:
    """Decide the trust of ``options.workspace`` (its listed decision, the content it was
    trusted with, ``--trust-workspace``); a broken trusted-folders file exits 52."""
    from gemtui.config.trust import workspace_trust

    return TrustedRun(options, workspace_trust(options.workspace, flag=options.trust_workspace))


def build_session(
    settings: Settings,
    options: RunOptions,
    *,
    trusted: bool,
    provider: ResolvedProvider | None = None,
    attachment: StoreAttachment | None = None,
    at_screen: bool = False,
) -> Assembled:
    """Provider, store and session for this run; errors are ``FatalError`` (exit codes).

    ``provider`` reuses one already built (a resume keeps the running provider);
    ``attachment`` reuses an open store (it is closed here only if opened here).
    """
    from gemtui.agent.budget_attach import attach_budget
    from gemtui.agent.fallback import switch_always
    from gemtui.agent.fallback_attach import attach_fallback
    from gemtui.agent.provider_choice import resolve_provider
    from gemtui.agent.session import Session
    from gemtui.agent.store_attachment import attach_store, store_later

    opened = attachment is None
    if attachment is None and at_screen and options.resume is None and not _daily_cap(settings):
        attachment = store_later(options.workspace)  # the first prompt never waits for it
    elif attachment is None:  # an unknown --resume is said first (42), whatever the provider
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
            session_options(
                settings, options, trusted=trusted, attachment=attachment, at_screen=at_screen
            ),
        )
        attach_budget(session, settings, options.max_budget_usd, attachment.store)
        allowed = options.fallback or settings.general.fallback_auto
        attach_fallback(session, switch_always if allowed else None)  # the TUI asks instead
    except BaseException:
        if opened and attachment.store is not None:
            attachment.store.close()
        if owned is not None:
            _discard(owned)
        raise
    return Assembled(session, attachment)


def _daily_cap(settings: Settings) -> bool:
    """A daily cap reads today's spend from the store when the session is built."""
    return settings.budget.daily_usd is not None


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
