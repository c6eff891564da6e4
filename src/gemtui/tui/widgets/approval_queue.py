"""The approval queue: every tool call awaiting approval, with its full preview.

Keys fire only while the queue (not the prompt) has focus, and only when the person put
it there on purpose (F8 or a click; not Tab, a completion key in the prompt): a queue
that took the focus by itself (a call arrived while the prompt was empty and idle), or
was reached with Tab, answers no key that types text — digits and letters go to the
prompt whole, so "3 things" or "1. use" is a sentence, never an approval
(``gemtui.tui.intent``, the rule every consent question shares). Answers leave as
``ApprovalQueue.Decided`` messages carrying the request's correlation id; the app
forwards them to the bus. The queue never changes tool-call state itself: a call leaves
the queue when its next snapshot says it is no longer awaiting approval (or at once when
the person answered it).
"""

from __future__ import annotations

import difflib
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, Self

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from gemtui.bus.values import ApprovalDecision, Decision, ToolCallState
from gemtui.tui.intent import AnswersOnPurpose
from gemtui.tui.view.approval_keys import F8_FIRST, call_offers, keys_help
from gemtui.tui.widgets.code_highlight import highlight
from gemtui.tui.widgets.diff_view import DiffView
from gemtui.tui.widgets.key_hints import KeyHints

if TYPE_CHECKING:
    from gemtui.bus.events import Confirmation, ToolCallSnapshot

__all__ = ["ApprovalQueue", "preview_widgets"]


_REMEMBERING = frozenset({ApprovalDecision.ALLOW_SESSION, ApprovalDecision.ALLOW_ALWAYS})
_REACH_WORDS = {"file": "this file", "folder": "its folder", "every": "every call"}
"""What each reach of "allow for session / always" covers, in the person's words."""
_SCOPES: dict[str, Literal["file", "folder", "every"]] = {
    "file": "file",
    "folder": "folder",
    "every": "every",
}


@dataclass
class _Pending:
    snapshot: ToolCallSnapshot
    prompt_id: str
    reach: int = 0
    """Which of the call's remember scopes (file, folder, every call) 8 has chosen."""
    agent: str = ""
    """The fleet's id of the agent that asked (empty with a single session)."""
    label: str = ""
    """Its agent and workspace, shown while it is not the front agent's call."""


def _edit_diff(conf: Confirmation) -> str:
    if conf.diff:
        return str(conf.diff)
    path = conf.file_path or "file"
    return "".join(
        difflib.unified_diff(
            (conf.original or "").splitlines(keepends=True),
            (conf.proposed or "").splitlines(keepends=True),
            f"a/{path}",
            f"b/{path}",
        )
    )


def _remembers(conf: Confirmation | None, reach: int = 0) -> list[Widget]:
    """The rules "allow for session / always" would save: exactly what the policy adds
    (for an edit, at the reach 8 has chosen)."""
    saved = conf.remembers if conf is not None else None
    if saved is None:
        return []
    if conf is not None and conf.scopes:
        chosen = reach % len(conf.scopes)
        label = conf.scopes[chosen][1]
        reaches = " / ".join(
            f"[{_REACH_WORDS.get(key, key)}]" if i == chosen else _REACH_WORDS.get(key, key)
            for i, (key, _label) in enumerate(conf.scopes)
        )
        text = f"session / always remember: {label}\n8 changes the reach: {reaches}"
        return [Static(Content.styled(text, "$text-muted"), classes="preview-remembers")]
    text = (
        "session / always remember: " + ", ".join(saved)
        if saved
        else "session / always remember nothing: no part of this call can be named in a rule"
    )
    return [Static(Content.styled(text, "$text-muted"), classes="preview-remembers")]


def preview_widgets(snapshot: ToolCallSnapshot, reach: int = 0) -> list[Widget]:
    """What a person needs to see to decide: diff, command, URLs or server and args,
    and what allowing it for the session (or always) would save."""
    return [*_preview(snapshot), *_remembers(snapshot.confirmation, reach)]


def _preview(snapshot: ToolCallSnapshot) -> list[Widget]:
    conf = snapshot.confirmation
    title = (conf.title if conf is not None else None) or snapshot.description or snapshot.name
    head = Static(Content.styled(title, "bold"), classes="preview-title")
    args = Static(
        highlight(json.dumps(snapshot.args, indent=2, ensure_ascii=False), language="json")
    )
    if conf is None:
        return [head, args]
    if conf.kind == "edit":
        return [head, DiffView(_edit_diff(conf), path=conf.file_path)]
    if conf.kind == "exec":
        out: list[Widget] = [head, Static(highlight(conf.command or "", language="bash"))]
        out.append(Static(Content.styled(f"in {conf.cwd or '.'}", "$text-muted")))
        if conf.has_redirection:
            out.append(
                Static(
                    Content.styled(
                        "⚠ The command redirects output (>, >>, <): it may write files "
                        "outside what you see here.",
                        "bold $text-warning",
                    ),
                    classes="preview-warning",
                )
            )
        return out
    if conf.kind == "fetch":
        urls = "\n".join(f"• {u}" for u in conf.urls) or "(no URL)"
        return [head, Static(Content.styled(urls, "underline $text-primary"))]
    if conf.kind == "mcp":
        server = Static(Content.assemble(("server ", "$text-muted"), (conf.server or "?", "bold")))
        return [head, server, args]
    if conf.kind == "info" and conf.proposed:  # e.g. a skill: what it is, the folder it opens
        return [head, Static(Content(conf.proposed))]
    return [head, args]


_DIGIT_ACTIONS = frozenset({"decide", "reach", "feedback", "modify"})
"""The actions only digits are bound to (the letters go through ``letter``)."""


class ApprovalQueue(AnswersOnPurpose, Vertical, can_focus=True):
    """Calls awaiting approval, one shown at a time with a full preview."""

    DEFAULT_CSS = """
    ApprovalQueue { height: 1fr; }
    ApprovalQueue > #approval-title { height: 1; }
    ApprovalQueue > #approval-preview { height: 1fr; }
    ApprovalQueue > #approval-keys { height: auto; }
    ApprovalQueue > #approval-feedback { display: none; }
    ApprovalQueue.-feedback > #approval-feedback { display: block; }
    ApprovalQueue Static { height: auto; }
    """

    BINDINGS = [
        Binding("1", "decide('allow_once')", "Allow once"),
        Binding("2", "decide('allow_session')", "Allow for session"),
        Binding("3", "decide('allow_always')", "Allow always"),
        Binding("4", "decide('reject')", "Reject"),
        Binding("5", "feedback", "Reject with feedback"),
        Binding("6", "modify", "Modify"),
        Binding("7", "decide('allow_server')", "Allow this MCP server always"),
        Binding("8", "reach", "What session / always remembers: file, folder, every call"),
        # Every answer acts only when the queue was focused on purpose (check_action):
        # otherwise its key is not bound at all here and the app sends it to the prompt.
        Binding("a", "letter('allow_once')", "Allow once", show=False),
        Binding("s", "letter('allow_session')", "Allow for session", show=False),
        Binding("A", "letter('allow_always')", "Allow always", show=False),
        Binding("r", "letter('reject')", "Reject", show=False),
        Binding("f", "letter('feedback')", "Reject with feedback", show=False),
        Binding("m", "letter('modify')", "Modify", show=False),
        Binding("S", "letter('allow_server')", "Allow this MCP server always", show=False),
        Binding("w", "letter('reach')", "Remember file, folder or every call", show=False),
        Binding("j", "letter('next')", "Next", show=False),
        Binding("k", "letter('previous')", "Previous", show=False),
        Binding("d", "letter('toggle_diff')", "Unified / side by side", show=False),
        Binding("ctrl+a", "approve_batch", "Approve all edits", show=False),
        Binding("up", "scroll_preview(-1)", show=False),
        Binding("down", "scroll_preview(1)", show=False),
        Binding("pageup", "scroll_preview(-10)", show=False),
        Binding("pagedown", "scroll_preview(10)", show=False),
    ]

    ANSWERS: ClassVar[frozenset[str]] = frozenset(
        {"decide", "letter", "feedback", "modify", "reach", "approve_batch"}
    )
    """Every key that answers, or changes what an answer saves, needs intent."""

    ARM_DELAY: ClassVar[float] = 0.6
    """Seconds after focus arrives or a new call is shown before decision keys act, so
    a keystroke meant for the prompt (or a double tap) never decides a call."""

    class Decided(Message):
        """The person answered one approval request."""

        def __init__(
            self, correlation_id: str, call_id: str, decision: Decision, agent_id: str = ""
        ) -> None:
            super().__init__()
            self.correlation_id = correlation_id
            self.call_id = call_id
            self.decision = decision
            self.agent_id = agent_id
            """The agent that asked: the decision reaches exactly it."""

    class Changed(Message):
        """The number of calls awaiting approval changed."""

        def __init__(self, count: int) -> None:
            super().__init__()
            self.count = count

    class ModifyRequested(Message):
        """The person wants to edit the proposed content or command before allowing it."""

        def __init__(self, snapshot: ToolCallSnapshot, text: str, agent_id: str = "") -> None:
            super().__init__()
            self.snapshot = snapshot
            self.text = text
            self.agent_id = agent_id

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._pending: dict[tuple[str, str], _Pending] = {}
        """By (agent, call id): two agents' calls may share an id, never an entry."""
        self._answered: set[tuple[str, str]] = set()
        self.front_agent = ""
        """The front agent's id: its calls need no label."""
        self._index = 0
        self._side_by_side = False
        self._shown: str | None = None
        """The call in front, so new calls joining behind it do not re-arm the delay."""
        self._warned = False
        self.on_purpose = False
        """The person brought the focus here (F8, a click): the answer keys act."""
        self._taking_focus = False
        self._composed = False
        """Its widgets are in place: a call upserted before (it is mounted at its first
        use) is drawn by ``on_mount``."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """In the screen-reader mode only the letters the log names answer: a digit
        (the keys 1 to 8) never answers there."""
        if action in _DIGIT_ACTIONS and self.app.has_class("-screen-reader"):
            return False
        return super().check_action(action, parameters)

    def compose(self) -> ComposeResult:
        yield Static(id="approval-title")
        yield VerticalScroll(id="approval-preview", can_focus=False)
        hints = KeyHints(keys_help(server=False), id="approval-keys", wrap=True)
        yield hints

    def on_mount(self) -> None:
        self._composed = True
        self._shown = None  # a call upserted before is drawn now: its delay starts now
        self._show()

    # -- the queue ---------------------------------------------------------------------------
    def upsert(
        self, snapshot: ToolCallSnapshot, prompt_id: str = "", *, agent: str = "", label: str = ""
    ) -> None:
        """Show, update or drop a call according to its latest snapshot (of ``agent``'s
        session, named ``label`` while it is not the front one)."""
        before = len(self._pending)
        key = (agent, snapshot.call_id)
        waiting = (
            snapshot.state == ToolCallState.AWAITING_APPROVAL
            and snapshot.correlation_id is not None
            and (agent, snapshot.correlation_id) not in self._answered
        )
        if waiting:
            known = self._pending.get(key)
            label = label or (known.label if known is not None else "")
            self._pending[key] = _Pending(snapshot, prompt_id, agent=agent, label=label)
        elif key in self._pending:
            del self._pending[key]
        else:
            return
        self._show()
        if len(self._pending) != before:
            self.post_message(self.Changed(len(self._pending)))

    def pending(self) -> list[ToolCallSnapshot]:
        return [p.snapshot for p in self._pending.values()]

    def asking(self) -> set[str]:
        """The agents with a call waiting here."""
        return {p.agent for p in self._pending.values()}

    def current(self) -> ToolCallSnapshot | None:
        items = list(self._pending.values())
        return items[self._index].snapshot if items else None

    def _arm(self) -> None:
        self._armed_at = time.monotonic() + self.ARM_DELAY
        self._warned = False

    def _ready(self) -> bool:
        if time.monotonic() >= getattr(self, "_armed_at", 0.0):
            return True
        self.app.bell()
        if not self._warned:  # once per arming: a held key must not stack toasts
            self._warned = True
            self.notify(
                "Key ignored: the call has just been shown. Read it, then press again.",
                severity="warning",
                timeout=3,
            )
        return False

    def take_focus(self) -> None:
        """Focus the queue because a call arrived (not because the person chose it)."""
        if not self.has_focus:
            self._taking_focus = True
            self.focus()

    def focus(self, scroll_visible: bool = True) -> Self:
        """Focus brought here on purpose (F8, a program acting for the person): every key
        of the queue acts. Focus that arrives otherwise (Tab, which completes ``@paths``
        in the prompt and so is part of typing) leaves the answer keys unbound."""
        self._set_on_purpose(not self._taking_focus)
        self._taking_focus = False
        return super().focus(scroll_visible)

    def _set_on_purpose(self, on_purpose: bool) -> None:
        if on_purpose != self.on_purpose:
            self.on_purpose = on_purpose
            current = self.current()
            if current is not None and self._composed:  # else drawn by ``on_mount``
                self._show_keys(current)
            self.refresh_bindings()

    def _show_keys(self, snap: ToolCallSnapshot) -> None:
        is_mcp, reach = call_offers(snap)
        keys = keys_help(server=is_mcp, letters=self.on_purpose, reach=reach)
        if not self.on_purpose and self.app.has_class("-screen-reader"):  # no digit answers
            keys = [F8_FIRST, *keys_help(server=is_mcp, reach=reach)]
        self.query_one("#approval-keys", KeyHints).show(keys)  # wraps: every key stays

    def on_focus(self) -> None:
        self._arm()

    def on_blur(self) -> None:
        if not self.has_focus_within:  # the feedback box is part of the queue
            self._set_on_purpose(False)

    def on_click(self) -> None:
        self._set_on_purpose(True)

    def _show(self, *, browsing: bool = False) -> None:
        """Draw the current call; a call newly in front arms the delay again (not one the
        person brought there with j/k: that key was meant for the queue)."""
        items = list(self._pending.values())
        self._index = max(0, min(self._index, len(items) - 1))
        shown = items[self._index].snapshot.call_id if items else None
        if shown != self._shown and not browsing:
            self._arm()
        self._shown = shown
        if not self._composed:
            return
        title = self.query_one("#approval-title", Static)
        preview = self.query_one("#approval-preview", VerticalScroll)
        preview.remove_children()
        if not items:
            title.update(Content.styled("No tool call is waiting for approval", "$text-muted"))
            return
        snap = items[self._index].snapshot
        self._show_keys(snap)
        agent = snap.confirmation.agent if snap.confirmation is not None else None
        asker = f" for agent {agent}" if agent else ""  # a subagent's call says whose it is
        pending = items[self._index]
        labelled = pending.agent != self.front_agent and bool(pending.label)
        asker += " — a background agent's" if labelled else ""
        title.update(
            Content.assemble(
                (f"Approve {snap.name}{asker}", "bold $tool-pending"),
                (f"  ({self._index + 1} of {len(items)})", "$text-muted"),
            )
        )
        widgets = preview_widgets(snap, items[self._index].reach)
        if labelled:  # whose call it is and where it runs, before what it does
            label = Content.styled(pending.label, "bold $text-warning")
            widgets.insert(0, Static(label, classes="preview-agent"))
        for widget in widgets:
            if isinstance(widget, DiffView):
                widget.side_by_side = self._side_by_side
        preview.mount_all(widgets)
        preview.scroll_home(animate=False)

    def _answer(self, pending: _Pending, decision: Decision) -> None:
        snap = pending.snapshot
        assert snap.correlation_id is not None
        self._answered.add((pending.agent, snap.correlation_id))
        self._pending.pop((pending.agent, snap.call_id), None)
        self.post_message(self.Decided(snap.correlation_id, snap.call_id, decision, pending.agent))

    def _answer_current(self, decision: Decision) -> None:
        items = list(self._pending.values())
        if not items:
            return
        self._answer(items[self._index], decision)
        self._show()
        self.post_message(self.Changed(len(self._pending)))

    # -- actions -----------------------------------------------------------------------------
    async def action_letter(self, action: str) -> None:
        """A letter key, bound only while the queue was focused on purpose."""
        if action == "feedback":
            await self.action_feedback()
            return
        simple = {
            "modify": self.action_modify,
            "next": self.action_next,
            "previous": self.action_previous,
            "toggle_diff": self.action_toggle_diff,
            "reach": self.action_reach,
        }
        if action in simple:
            simple[action]()
        else:
            self.action_decide(action)

    def action_decide(self, decision: str) -> None:
        current = self.current()
        if decision == "allow_server" and not (
            current is not None
            and current.confirmation is not None
            and current.confirmation.kind == "mcp"
        ):
            return  # only an MCP call has a server to allow
        if self._ready():
            kind = ApprovalDecision(decision)
            scope = self._scope() if kind in _REMEMBERING else None
            self._answer_current(Decision(kind, scope=scope))

    def _scope(self) -> Literal["file", "folder", "every"] | None:
        """The reach chosen for the call in front, when it offers a choice."""
        items = list(self._pending.values())
        if not items:
            return None
        pending = items[self._index]
        conf = pending.snapshot.confirmation
        if conf is None or not conf.scopes:
            return None
        return _SCOPES.get(conf.scopes[pending.reach % len(conf.scopes)][0])

    def action_reach(self) -> None:
        """Widen what allow for session / always remembers: this file, its folder, every
        call, and round again. It decides nothing, so it needs no arming."""
        items = list(self._pending.values())
        if not items:
            return
        pending = items[self._index]
        conf = pending.snapshot.confirmation
        if conf is None or not conf.scopes:
            return
        pending.reach = (pending.reach + 1) % len(conf.scopes)
        self._show(browsing=True)

    async def action_feedback(self) -> None:
        if self.current() is None or not self._ready():
            return
        boxes = self.query("#approval-feedback").results(Input)
        box = next(boxes, None)
        if box is None:  # made on first use: the first frame need not style an Input
            box = Input(
                placeholder="Why reject? (Enter sends, Esc cancels)", id="approval-feedback"
            )
            await self.mount(box)
        self.add_class("-feedback")
        box.focus()

    @on(Input.Submitted, "#approval-feedback")
    def _send_feedback(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        event.input.clear()
        self.remove_class("-feedback")
        self.focus()
        if text:
            self._answer_current(Decision(ApprovalDecision.REJECT_WITH_FEEDBACK, feedback=text))

    def key_escape(self, event: events.Key) -> None:
        if self.has_class("-feedback"):  # Esc leaves the feedback box, never cancels the turn
            event.stop()
            self.remove_class("-feedback")
            self.focus()

    def action_modify(self) -> None:
        snap = self.current()
        if snap is None or not self._ready():
            return
        conf = snap.confirmation
        if conf is None:
            return
        text = (conf.command if conf.kind == "exec" else conf.proposed) or ""
        agent = list(self._pending.values())[self._index].agent
        self.post_message(self.ModifyRequested(snap, text, agent))

    def modified(self, call_id: str, text: str, agent: str = "") -> None:
        """The person saved an edited version: allow the call with it."""
        pending = self._pending.get((agent, call_id))
        if pending is not None:
            self._answer(pending, Decision(ApprovalDecision.MODIFY, modified=text))
            self._show()
            self.post_message(self.Changed(len(self._pending)))

    def action_next(self) -> None:
        if self._pending:
            self._index = (self._index + 1) % len(self._pending)
            self._show(browsing=True)

    def action_previous(self) -> None:
        if self._pending:
            self._index = (self._index - 1) % len(self._pending)
            self._show(browsing=True)

    def action_approve_batch(self) -> None:
        """Allow every pending edit of the shown call's prompt (after seeing them)."""
        if not self._ready():
            return
        items = list(self._pending.values())
        if not items:
            return
        batch = (items[self._index].agent, items[self._index].prompt_id)
        for pending in items:
            conf = pending.snapshot.confirmation
            if (pending.agent, pending.prompt_id) == batch and getattr(
                conf, "kind", None
            ) == "edit":
                self._answer(pending, Decision(ApprovalDecision.ALLOW_ONCE))
        self._show()
        self.post_message(self.Changed(len(self._pending)))

    def action_toggle_diff(self) -> None:
        self._side_by_side = not self._side_by_side
        for view in self.query(DiffView):
            view.side_by_side = self._side_by_side

    def action_scroll_preview(self, lines: int) -> None:
        self.query_one("#approval-preview", VerticalScroll).scroll_relative(y=lines, animate=False)
