"""A resumed session on the main screen: its story drawn as it happened (turns a
compression summarised included) and the usage it recorded back in the usage pane."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from gemtui.tui.resume_story import COMPRESSED_HERE, resume_story
from gemtui.tui.screen_reader import say_resumed

if TYPE_CHECKING:
    from gemtui.agent.session import Session
    from gemtui.store import SessionStore
    from gemtui.store.subagent_log import SubagentTranscript
    from gemtui.tui.screens.main import MainScreen
    from gemtui.wire import Content

__all__ = ["show_resumed"]

log = logging.getLogger(__name__)


def show_resumed(screen: MainScreen, session: Session, store: SessionStore | None) -> None:
    """Draw a saved session as it happened (turns a compression summarised included)
    and bring back the usage it recorded."""
    epochs: list[list[Content]] = []
    calls: dict[str, dict[str, Any]] = {}
    children: dict[str, SubagentTranscript] = {}
    if store is not None:
        try:
            epochs = store.history_epochs(session.id)
            calls = {c["call_id"]: c for c in store.tool_calls(session.id)}
            children = store.subagent_transcripts(session.id)
            agents = {k: c["name"] for k, c in calls.items()}
            agents.update({k: c.agent for k, c in children.items() if c.agent})
            rows = store.usage(session.id)
            _restore_usage(screen, session, rows, agents)
        except Exception:  # a view of the past must never stop the session
            log.exception("could not read the saved session's past")
    transcript = screen.transcript

    def describe(name: str, args: dict[str, Any]) -> str:
        return _describe(session, name, args)

    run: list[Content] = []
    for item in resume_story(epochs, list(session.history)):
        if item is not None:
            run.append(item)
            continue
        transcript.replay(run, describe, calls, children)
        run = []
        transcript.add_notice(COMPRESSED_HERE)
    transcript.replay(run, describe, calls, children)
    say_resumed(screen, transcript.messages())  # the screen-reader mode's lines


def _restore_usage(
    screen: MainScreen, session: Session, rows: list[dict[str, Any]], agents: dict[str, str]
) -> None:
    """Each stored model call back in the usage pane; a subagent's (its row names the
    delegation it ran under, ``agents`` that call's agent) on its agent's line, as live."""
    from gemtui.agent.prices import cost_of, price_book, price_for
    from gemtui.bus.events import Usage

    prices = price_book(session.settings, session.provider.settings.prices)
    for row in rows:
        usage = Usage(row["input"], row["output"], row["thoughts"], row["cached"], row["total"])
        price = price_for(row["model"] or session.model, prices)
        parent = row.get("parent_call")
        if parent:
            agent = agents.get(parent, "subagent")
            screen.usage.record_subagent_turn(agent, usage, cost_of(usage, price))
        else:
            screen.usage.record_turn(usage, cost_of(usage, price))


def _describe(session: Session, name: str, args: dict[str, Any]) -> str:
    """The line a live call of ``name`` shows (its command, its path), for a saved one."""
    tool = session.registry.get(name)
    try:
        if tool is not None:
            return tool.build(args).describe()
    except Exception:  # arguments a tool no longer takes: the plain form below
        log.debug("could not describe a saved %s call", name, exc_info=True)
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"
