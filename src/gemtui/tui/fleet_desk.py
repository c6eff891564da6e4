"""The app's side of a fleet of agents: news in, the status line, the one approval
queue, attention, and which agent is in front.

The fleet (``agent_rows.AgentFleet``) calls back on the event loop; each piece of news
is re-posted to the app as ``AgentsNews`` so it is handled in order with everything else
on the screen. Calls of every agent go into the one approval queue keyed by agent, and a
decision goes back to ``fleet.decide`` with the agent that asked: never to whichever
session happens to be in front.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeGuard

from msgspec.structs import replace
from textual.message import Message

from gemtui.tui.agent_rows import (
    FINISHED,
    AgentFleet,
    AgentRequest,
    AgentRow,
    CallChanged,
    FleetNews,
    StartRefused,
    attention_between,
    status_summary,
)
from gemtui.tui.attention import AttentionSwitches, attention_bytes

if TYPE_CHECKING:
    from gemtui.agent.assembly import Assembled
    from gemtui.agent.session import Session
    from gemtui.bus.values import Decision
    from gemtui.config.settings import Settings
    from gemtui.tui.app_surface import AppSurface
    from gemtui.tui.fleet_adapter import EngineFleet

__all__ = ["AgentsNews", "FleetDesk"]


class AgentsNews(Message, bubble=False):
    """A fleet's news, re-posted to the app."""

    def __init__(self, news: FleetNews) -> None:
        super().__init__()
        self.news = news


class FleetDesk:
    """What the app knows of its fleet; the agent view reads it."""

    def __init__(
        self,
        app: AppSurface,
        fleet: AgentFleet,
        switches: AttentionSwitches,
        write: Callable[[str], None] | None = None,
    ) -> None:
        self.app = app
        self.fleet = fleet
        self.switches = switches
        self._write = write
        self.rows: list[AgentRow] = list(fleet.rows())
        self.lines: list[str] = []
        """Attention lines, newest last (the view shows them under the table)."""
        self.views: list[Callable[[], None]] = []
        """Open agent views' redraws (each adds itself while mounted)."""
        self.draft = AgentRequest("")
        """The new-agent form as last left (cancelling never loses what was typed)."""
        self._unsubscribe = fleet.subscribe(self._post)
        self.app.main.front_agent = fleet.front_id
        self.show_counts()

    @staticmethod
    def switches_of(settings: Settings) -> AttentionSwitches:
        """``[general]``'s attention switches (Gemini CLI's names where it has them)."""
        general = settings.general
        return AttentionSwitches(
            general.attention_lines, general.terminal_bell, general.enable_notifications
        )

    def _post(self, news: FleetNews) -> None:
        self.app.post_message(AgentsNews(news))

    async def aclose(self) -> None:
        """The app ends: no more news; the background agents stop and close."""
        self._unsubscribe()
        await self.fleet.close_background()

    def row(self, agent_id: str) -> AgentRow | None:
        return next((row for row in self.rows if row.id == agent_id), None)

    # -- news --------------------------------------------------------------------------
    def apply(self, news: FleetNews) -> None:
        """One piece of news: a call into the queue, or new rows (and their attention)."""
        if isinstance(news, CallChanged):
            row = self.row(news.agent_id)
            label = row.label if row is not None else f"agent {news.agent_id}"
            self.app.main.approvals.upsert(
                news.snapshot, news.prompt_id, agent=news.agent_id, label=label
            )
            return
        before, self.rows = self.rows, list(self.fleet.rows())
        for attention in attention_between(before, self.rows, self.fleet.front_id):
            if self.switches.line:
                self.lines.append(f"{attention.title}: {attention.body}")
                self.app.notify(f"{attention.title}: {attention.body} (F5: agents)")
            self.write(attention_bytes(attention.title, attention.body, self.switches))
        self.show_counts()
        self._refresh_view()
        if self.app.queued and not self.front_busy:  # typed while the fleet ran it
            self.app.call_later(self.app.send_next)

    @property
    def front_busy(self) -> bool:
        """The front agent's prompt runs in the fleet (it was started from the view):
        a prompt typed meanwhile waits for it rather than running beside it."""
        row = self.row(self.fleet.front_id)
        return row is not None and row.state in ("working", "waiting")

    def stop_front(self) -> bool:
        """Esc for a front agent whose prompt the fleet runs (it was started from the
        view, so the app's turn worker, which Esc cancels, is not running it); False when
        the fleet is not running the front agent's prompt."""
        if not self.front_busy:
            return False
        self.fleet.stop(self.fleet.front_id)
        return True

    def write(self, data: str) -> None:
        """Raw bytes to the terminal (the bell, OSC notifications)."""
        if not data:
            return
        if self._write is not None:
            self._write(data)
            return
        driver = self.app._driver
        if driver is not None:
            driver.write(data)

    def show_counts(self) -> None:
        """The status line's ``agents N working · M wait for you``."""
        self.app.main.status.agents = status_summary(self.shown_rows(), self.fleet.front_id)

    def shown_rows(self) -> list[AgentRow]:
        """The rows as the view shows them: the front agent's own prompts run in the app
        (not in the fleet), so while one runs it is working, or waiting for you while
        one of its calls is in the queue."""
        front = self.fleet.front_id
        asking = front in self.app.main.agents_asking()
        out = []
        for row in self.rows:
            if row.id == front and row.state not in ("working", "waiting"):
                if asking:
                    row = replace(row, state="waiting")
                elif self.app.turn_running:
                    row = replace(row, state="working")
            out.append(row)
        return out

    def _refresh_view(self) -> None:
        for redraw in list(self.views):
            redraw()

    # -- what the view asks ------------------------------------------------------------
    def decide(self, agent_id: str, correlation_id: str, decision: Decision) -> bool:
        return self.fleet.decide(agent_id, correlation_id, decision)

    def start(self, request: AgentRequest) -> str | None:
        """Start an agent; a limit reached is said in the view and as a toast."""
        try:
            return self.fleet.start(request)
        except StartRefused as exc:
            self.lines.append(str(exc))
            self.app.notify(str(exc), severity="warning")
            self._refresh_view()
            return None

    def stop(self, agent_id: str) -> None:
        row = self.row(agent_id)
        if row is None or row.state in FINISHED:
            self.app.notify("That agent has already finished.")
            return
        self.fleet.stop(agent_id)

    def remove(self, agent_id: str) -> None:
        row = self.row(agent_id)
        if row is None:
            return
        if row.state not in FINISHED:
            self.app.notify("Only a finished agent can be removed: stop it first (s).")
            return
        if agent_id == self.fleet.front_id:
            self.app.notify("The agent in front stays listed: bring another one to the front.")
            return
        self.fleet.remove(agent_id)
        self.apply_rows()

    def apply_rows(self) -> None:
        from gemtui.tui.agent_rows import RowsChanged

        self.apply(RowsChanged())

    def bring_to_front(self, agent_id: str) -> None:
        """The main screen shows ``agent_id``'s session from now on."""
        if agent_id == self.fleet.front_id or self.row(agent_id) is None:
            return
        self.fleet.bring_to_front(agent_id)
        self._show_front(self.fleet.session_of(agent_id))
        self.app.main.front_agent = agent_id
        self.apply_rows()

    def _show_front(self, session: Session) -> None:
        from gemtui.agent.budget_attach import ask_at_caps
        from gemtui.agent.fallback_attach import attach_fallback
        from gemtui.tui.bridge import pump_events
        from gemtui.tui.fallback_flow import fallback_question
        from gemtui.tui.resumed_view import show_resumed

        app, main = self.app, self.app.main
        main.transcript.clear()
        main.thoughts.clear()
        main.usage.reset()
        if app.controller.session is not None:  # off screen: a cap ends its prompt (54)
            ask_at_caps(app.controller.session, asks=False)
            attach_fallback(app.controller.session, None)  # and a fallback never switches
        app.controller.session = session
        ask_at_caps(session)  # on screen: at a cap the person is asked
        attach_fallback(session, fallback_question(app.controller.app))  # and before a switch
        status = main.status
        status.turn_ended()
        status.provider, status.model = session.provider.name, session.model
        status.approval_mode = session.approval_mode
        main.usage.context_window = session.context_window
        app.run_worker(
            pump_events(session.bus, main), name="bridge", group="bridge", exclusive=True
        )
        if session.history:
            show_resumed(main, session, app.controller.store)


def start_in_fleet(
    app: AppSurface, desk: FleetDesk | None, later: bool = False
) -> FleetDesk | None:
    """Start the app's session as an agent of the engine's fleet (made with the first
    one): the fleet says it started and records it. A session handed in without a store
    (tests, the bench) starts alone, as before; the new desk, if one was made.

    ``later``: a prompt waits to be sent. The session starts now, and the fleet (60-90 ms
    on the UI thread on a slow machine) once that prompt has ended, or when the agent view
    asks for it first (``app.fleet_later``): the request never waits for it (issue 34).
    """
    built, session = app.controller.assembled, app.session
    assert session is not None
    if built is None or built.session is not session:
        session.start()
        return None
    if desk is not None and _engine_fleet(desk.fleet):
        agent_id = desk.fleet.fleet.adopt(built)  # /new, a resumed session: one more agent
        desk.fleet.bring_to_front(agent_id)  # already on screen: only the fleet is told
        app.main.front_agent = agent_id
        desk.apply_rows()
        return desk
    if later or built.attachment.opening:  # rows are saved once the store is open
        session.start()  # saving began with the screen (``record``): only said started
        app.fleet_later = _fleet_after_first_prompt(app, built, later)
        return None
    return _new_desk(app, built, start=True)


def _engine_fleet(fleet: object) -> TypeGuard[EngineFleet]:
    """A desk's fleet is the engine's (imported only once a desk exists: the first
    prompt's request never waits for the fleet's modules)."""
    from gemtui.tui.fleet_adapter import EngineFleet

    return isinstance(fleet, EngineFleet)


def _new_desk(
    app: AppSurface, built: Assembled, *, start: bool, spent: tuple[int, float | None] = (0, None)
) -> FleetDesk:
    from gemtui.agent.fleet import Fleet
    from gemtui.tui.fleet_adapter import EngineFleet

    settings = app.controller.settings
    options = app.controller.run_options
    fleet = EngineFleet(Fleet(settings), options, open_worktree=app.open_worktree)
    fleet.fleet.adopt(built, start=start, spent=spent)
    return FleetDesk(app, fleet, FleetDesk.switches_of(settings))


def _fleet_after_first_prompt(
    app: AppSurface, built: Assembled, prompt: bool
) -> Callable[[], None]:
    """The fleet's start, run once the session's first prompt ended (``prompt``: one
    waits) and its store is open, or when called sooner; what the prompt spent is
    counted here meanwhile, so the agent's row has it."""
    from gemtui.bus import AgentFinished, Event, TurnFinished

    spent: list[float | None] = [0, None]
    waits = {"prompt"} if prompt else set()
    if built.attachment.opening:
        waits.add("store")

    def done(what: str) -> None:
        waits.discard(what)
        if not waits:
            app.call_later(start)

    def follow(event: Event) -> None:
        if isinstance(event, TurnFinished):  # as the fleet counts: subagents' calls too
            spent[0] = (spent[0] or 0) + event.usage.total
            if event.cost is not None:
                spent[1] = (spent[1] or 0.0) + event.cost
        elif isinstance(event, AgentFinished) and not event.parent_id:
            done("prompt")

    def start() -> None:
        unsubscribe()
        if app.fleet_later is not start:  # started already, or another session in front
            return
        app.fleet_later = None
        alone = getattr(app, "desk", None) is None  # the app's (``GemtuiApp.desk``)
        if alone and app.controller.assembled is built and built.store is not None:
            tokens = int(spent[0] or 0)
            app.desk = _new_desk(app, built, start=False, spent=(tokens, spent[1]))  # type: ignore[attr-defined]

    unsubscribe = built.session.bus.subscribe(follow)
    built.attachment.when_open(lambda: done("store"))
    return start
