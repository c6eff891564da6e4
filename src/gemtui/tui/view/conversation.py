"""The rules that turn engine events into what the conversation view shows.

``ConversationView.feed`` takes one bus event and returns the changes to draw (``ops``):
secrets masked in streamed text (a ``StreamRedactor`` per stream, its held-back tail
flushed when the stream ends), a thought marker once per thinking call or subject, a
subagent's words routed to its card (``parent_id``) and never into the answer, each
call's usage counted once, a failure said once. No Textual here: the screen applies the
ops, and unit tests read the rules without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import TYPE_CHECKING, Any

from msgspec import structs

from gemtui.bus.values import TerminateReason
from gemtui.redact import StreamRedactor, redact
from gemtui.tui.view import ops
from gemtui.tui.view.terminal_safe import printable_fields, without_colour

if TYPE_CHECKING:
    from gemtui.bus import events as ev

__all__ = ["CANCELLED_NOTICE", "ConversationView", "mcp_summary"]

CANCELLED_NOTICE = (
    "Cancelled. Nothing already received is lost; the model is told the request"
    " was cancelled and will not act on it unless you ask again."
)

Ops = list[ops.Op]


def mcp_summary(states: list[str]) -> str:
    """The status line's MCP field: ready of all, ``…`` while one starts, ``✗n`` failed."""
    failed = states.count("failed")
    text = f"MCP {states.count('ready')}/{len(states)}"
    text += " …" if "starting" in states else ""
    return text + (f" ✗{failed}" if failed else "")


class ConversationView:
    """The main screen's state between events, and the rules that change it."""

    def __init__(
        self, provider: Callable[[], str] = lambda: "", clock: Callable[[], float] = monotonic
    ) -> None:
        """``provider`` names the provider in use now (a /model switch changes it
        without an event); a refused Google grant asks for sign-in only there.
        ``clock`` times a retry wait (tests move it instead of waiting)."""
        self._provider = provider
        self._clock = clock
        self._retry: tuple[float, str] | None = None
        """When a retry wait ends and the attempt it leads to, while counting down."""
        self._thought_subject: str | None = None
        self._thought_marked = False
        """This model call's thinking already has its marker in the transcript."""
        self._answer_mask = StreamRedactor()
        self._thought_mask = StreamRedactor()
        self._last_thought: ev.ThoughtDelta | None = None
        """The thought whose masked tail is held back, for its subject and prompt."""
        self._failed_prompts: set[str] = set()
        """Prompts whose failure is already in the transcript (said once, not twice)."""
        self._mcp_states: dict[str, str] = {}
        """Each MCP server's latest status, for the status line's summary."""
        self._routes: dict[type[ev.Event], Callable[[Any], Ops]] = {}
        """Each event class's rule, filled with the first event (``_route``)."""

    def feed(self, event: ev.Event) -> Ops:
        """What ``event`` changes in the view, in the order to apply it; no text in them
        carries a control character that could reach the terminal as a sequence."""
        route = self._route(event)
        if route is None:
            return []
        return [printable_fields(_plain_output(op)) for op in route(event)]

    def _route(self, event: ev.Event) -> Callable[[Any], Ops] | None:
        """The rule of ``event``'s class. The table (and the event classes) is built with
        the first event, not at start: the first frame needs neither (issue 26)."""
        if not self._routes:
            from gemtui.bus import events as ev

            self._routes = {
                ev.SessionStarted: lambda e: [
                    ops.StatusChanged(provider=e.provider, model=e.model)
                ],
                ev.UserMessage: self._user_message,
                ev.TurnStarted: self._turn_started,
                ev.ContentDelta: self._content,
                ev.ThoughtDelta: self._thought,
                ev.StreamRetried: self._stream_retried,
                ev.TurnFinished: self._turn_finished,
                ev.ToolCallStateChanged: self._tool_call,
                ev.ToolOutput: lambda e: [ops.ToolOutputShown(e.call_id, e.text)],
                ev.TodosUpdated: lambda e: [
                    ops.TodosShown(tuple(t.get("status", "") for t in e.todos), tuple(e.lines()))
                ],
                ev.HistoryCompressed: self._compressed,
                ev.ErrorOccurred: self._error,
                ev.RequestRetrying: self._retrying,
                ev.ModelFallback: lambda e: [
                    ops.StatusChanged(model=e.to_model),
                    ops.Notice(f"Switched to {e.target}: {e.reason}", "warning"),
                ],
                ev.ModelChanged: lambda e: [
                    ops.StatusChanged(provider=e.to_provider, model=e.to_model),
                    ops.WindowChanged(e.context_window, e.priced),
                ],
                ev.ProviderProgress: lambda e: [ops.StatusChanged(busy=e.message)],
                ev.AccountStatus: lambda e: [ops.AccountShown(e)],
                ev.RateLimitsSeen: lambda e: [
                    ops.StatusChanged(limits=e.limits.compact()),
                    ops.LimitsShown(e.limits),
                ],
                ev.RateLimitNear: lambda e: [ops.Notice(e.message, "warning")],
                ev.McpServerChanged: self._mcp_changed,
                ev.HookRan: lambda e: [
                    ops.Notice(
                        redact(e.summary()), "information" if e.outcome == "ok" else "warning"
                    )
                ],
                ev.ModelRouted: self._routed,
                ev.LoopDetected: lambda e: [ops.Notice(e.message, "warning")],
                ev.Citation: lambda e: [ops.Notice(e.text)],
                ev.AgentFinished: self._agent_finished,
                ev.BudgetAsked: lambda e: [ops.BudgetQuestion(e)],
            }
        return self._routes.get(type(event))

    def _user_message(self, e: ev.UserMessage) -> Ops:
        out: Ops = [ops.ScrolledToLatest(), ops.UserPromptShown(redact(e.text))]
        if e.attached:  # what @paths attached, right under the prompt
            out.append(ops.Notice(redact(e.attached)))
        return out

    def _turn_started(self, e: ev.TurnStarted) -> Ops:
        self._thought_marked = False
        return [ops.StatusChanged(model=e.model), ops.ModelCallStarted()]

    def _close_answer(self) -> Ops:
        out = self._flush_thought()
        rest = self._answer_mask.finish()
        if rest:
            out.append(ops.AnswerText(rest))
        out.append(ops.AnswerClosed())
        return out

    def _content(self, e: ev.ContentDelta) -> Ops:
        if e.parent_id:  # a subagent's text: on its card, never as the answer
            return [ops.SubagentText(e.parent_id, e.text)]
        out = self._flush_thought()
        out.append(ops.AnswerOpened())
        shown = self._answer_mask.feed(e.text)
        if shown:
            out.append(ops.AnswerText(shown))
        out.append(ops.Streamed(e.text))
        return out

    def _flush_thought(self) -> Ops:
        rest, last = self._thought_mask.finish(), self._last_thought
        if rest and last is not None:
            return [ops.ThoughtText(rest, last.subject, last.prompt_id)]
        return []

    def _thought(self, e: ev.ThoughtDelta) -> Ops:
        if e.parent_id:  # a subagent's thinking stays off the conversation's panes
            return []
        last = self._last_thought
        out: Ops = []
        if last is not None and (last.subject, last.prompt_id) != (e.subject, e.prompt_id):
            out = self._flush_thought()
        self._last_thought = e
        shown = self._thought_mask.feed(e.text)
        if shown:
            out.append(ops.ThoughtText(shown, e.subject, e.prompt_id))
        if not self._thought_marked or (e.subject and e.subject != self._thought_subject):
            self._thought_marked = True  # a call that thinks shows it, subject or not
            self._thought_subject = e.subject
            out.append(ops.ThoughtMarker(e.subject))
        out.append(ops.Streamed(e.text, thought=True))
        return out

    def _stream_retried(self, e: ev.StreamRetried) -> Ops:
        self._answer_mask = StreamRedactor()  # the partial answer is discarded, tail and all
        return [
            ops.AnswerDiscarded(),
            ops.Notice(f"The stream broke ({e.reason}); retrying.", "warning"),
        ]

    def _turn_finished(self, e: ev.TurnFinished) -> Ops:
        if e.parent_id:  # a subagent's model call: its card and its usage line
            u = e.usage
            tokens = u.total or u.input + u.output + u.thoughts
            return [ops.SubagentTurn(e.parent_id, tokens, e.usage, e.cost)]
        out = self._close_answer()
        out.append(ops.TurnCounted(e.usage, e.cost))
        if e.message:
            out.append(ops.Notice(e.message, "warning"))
        return out

    def _tool_call(self, e: ev.ToolCallStateChanged) -> Ops:
        from gemtui.bus.values import ToolCallState

        out = self._close_answer()
        if e.call.state == ToolCallState.AWAITING_APPROVAL:
            out.append(ops.ScrolledToLatest())  # what is being approved is in view
        out.append(ops.ToolCallShown(e.call, e.parent_id, e.prompt_id))
        return out

    def _compressed(self, e: ev.HistoryCompressed) -> Ops:
        return [
            ops.CompressionCounted(e.tokens_before, e.tokens_after),
            ops.Notice(f"History compressed: {e.tokens_before:,} → {e.tokens_after:,} tokens."),
        ]

    def _error(self, e: ev.ErrorOccurred) -> Ops:
        text = e.message + (f"\n{e.hint}" if e.hint else "")
        severity: ops.Severity = "warning" if e.kind == "warning" else "error"
        if severity == "error":
            self._failed_prompts.add(e.prompt_id)
        out: Ops = [ops.Notice(text, severity)]
        if e.kind == "AccountRefusedError":  # signing in again cannot help
            out.append(ops.AccountRefused(e.message))
        elif e.kind == "FatalAuthenticationError" and self._provider() == "code-assist":
            out.append(ops.SignInNeeded(e.message))  # the Google grant was refused
        return out

    def _retrying(self, e: ev.RequestRetrying) -> Ops:
        """Count the wait down on the status line until the next attempt starts."""
        attempt = f"(attempt {e.next_attempt}/{e.max_attempts})"
        self._retry = (self._clock() + e.wait, f"{attempt} · {e.target}" if e.target else attempt)
        return [ops.RetryWaitStarted()]

    def count_down(self, shown: str) -> tuple[str | None, float | None]:
        """One tick of the retry countdown, given the status line's ``busy`` text now:
        the text to show there (``None``: leave it) and the seconds until the next tick
        (``None``: the countdown is over). Anything else shown since ends the wait."""
        if self._retry is None:
            return None, None
        if shown and not shown.startswith("retrying"):
            self._retry = None  # something else happened since: the wait is over
            return None, None
        ends, attempt = self._retry
        left = ends - self._clock()
        if left > 0.5:
            return f"retrying in {left:.0f}s {attempt}", min(0.25, left - 0.5)
        self._retry = None
        return f"retrying now {attempt}", None

    def _routed(self, e: ev.ModelRouted) -> Ops:
        """``auto`` picked this prompt's model: say which and why; its call's tokens count."""
        out: Ops = [
            ops.StatusChanged(model=e.model),
            ops.Notice(e.summary(), "warning" if e.fell_back else "information"),
        ]
        if e.usage.total or e.usage.input:
            out.append(ops.TurnCounted(e.usage, None))
        return out

    def _mcp_changed(self, e: ev.McpServerChanged) -> Ops:
        """The status line counts ready servers; an open /mcp view redraws."""
        self._mcp_states[e.server] = e.status
        states = list(self._mcp_states.values())
        trouble = "failed" in states
        return [
            ops.StatusChanged(mcp=mcp_summary(states), mcp_trouble=trouble),
            ops.McpViewsStale(),
        ]

    def _agent_finished(self, e: ev.AgentFinished) -> Ops:
        out = self._close_answer()
        self._thought_subject = None
        self._retry = None
        out += [ops.StatusChanged(busy=""), ops.StreamEnded()]
        said = e.prompt_id in self._failed_prompts
        self._failed_prompts.discard(e.prompt_id)
        out.append(ops.TurnEnded())
        if e.reason == TerminateReason.ABORTED:
            out += [ops.PromptCancelled(), ops.Notice(CANCELLED_NOTICE, "warning")]
        elif e.reason == TerminateReason.MAX_TURNS:
            out.append(ops.Notice("Stopped at the turn limit.", "warning"))
        elif e.reason != TerminateReason.GOAL and e.error and not said:
            out.append(ops.Notice(e.error, "error"))
        return out


def _plain_output(op: ops.Op) -> ops.Op:
    """A tool's output without its colour codes (the rest of the op as it was)."""
    if isinstance(op, ops.ToolOutputShown):
        text = without_colour(op.text)
        return op if text == op.text else structs.replace(op, text=text)
    if isinstance(op, ops.ToolCallShown) and isinstance(op.call.output, str):
        output = without_colour(op.call.output)
        if output != op.call.output:
            return structs.replace(op, call=structs.replace(op.call, output=output))
    return op
