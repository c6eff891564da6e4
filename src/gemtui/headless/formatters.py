"""Headless views of the event stream: plain text, one JSON object, or JSON lines.

Each is an inline bus subscriber writing to stdout; progress, retries and refusals go
to stderr so stdout stays clean for scripts.

Nothing leaves unmasked (``gemtui.redact``): stderr and the text answer go through a
``RedactingWriter``; JSON is masked value by value before it is serialised, and streamed
deltas through a ``StreamRedactor`` so a key split between two deltas is still caught.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from gemtui.bus import (
    AgentFinished,
    ContentDelta,
    ErrorOccurred,
    Event,
    HistoryCompressed,
    HookRan,
    LoopDetected,
    ModelFallback,
    ModelRouted,
    ProviderProgress,
    RateLimitNear,
    RateLimitsSeen,
    Refusal,
    RequestRetrying,
    SessionStarted,
    StreamRetried,
    ThoughtDelta,
    TodosUpdated,
    ToolCallState,
    ToolCallStateChanged,
    ToolOutput,
    TurnFinished,
    TurnStarted,
    UserMessage,
)
from gemtui.bus.rate_limits import RateLimits
from gemtui.headless.stats import stats_of
from gemtui.redact import StreamRedactor, finish, redact_data, wrap

__all__ = [
    "JsonFormatter",
    "StreamJsonFormatter",
    "TextFormatter",
    "make_formatter",
    "one_line_args",
    "stats_of",
]


def _how_to_allow(kind: str) -> str:
    """The flags that let a refused call run next time: a headless run cannot ask, so the
    person has to choose before it starts (auto_edit allows file edits only)."""
    if kind == "edit":
        return "To allow it: --approval-mode auto_edit (file edits) or --yolo (every call)."
    return "To allow it: --yolo (every call), or a policy rule allowing this tool."


class _Base:
    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = wrap(err or sys.stderr)
        self.finished: AgentFinished | None = None
        self.errors: list[str] = []
        self.on_first_output: Any = None
        self.on_broken_pipe: Any = None
        """Called once when a reader closed our output (``gemtui -p … | head -c 1``)."""
        self.pipe_broken = False
        self._call_names: dict[str, str] = {}
        """Each call's tool name by id: a subagent's events name its parent call."""
        self.rate_limits: RateLimits | None = None
        """The providers' rate limits as the last response said them (for the stats)."""
        self.truncated = False
        """An answer of the conversation was cut by its output bound (for the stats)."""

    def _who(self, event: Event) -> str:
        """``"agent NAME: "`` for a subagent's event, nothing for the conversation's."""
        if not event.parent_id:
            return ""
        return f"agent {self._call_names.get(event.parent_id, event.parent_id)}: "

    def _note(self, text: str) -> None:
        self.err.write(text + "\n")
        self.err.flush()

    def _common(self, event: Event) -> None:
        """What every format reports on stderr."""
        if isinstance(event, RequestRetrying | ModelRouted):
            self._note(f"gemtui: {event.summary()}")
        elif isinstance(event, ProviderProgress):
            self._note(f"gemtui: {event.message}")
        elif isinstance(event, StreamRetried):
            self._note(f"gemtui: the answer broke off ({event.reason}); asking again")
        elif isinstance(event, ModelFallback):
            self._note(f"gemtui: switching from {event.source} to {event.target}: {event.reason}")
        elif isinstance(event, HistoryCompressed):
            self._note(
                f"gemtui: history compressed {event.tokens_before} → {event.tokens_after} tokens"
            )
        elif isinstance(event, LoopDetected):
            self._note(f"gemtui: {event.message}")
        elif isinstance(event, RateLimitsSeen):
            self.rate_limits = event.limits
        elif isinstance(event, RateLimitNear):
            self._note(f"gemtui: warning: {event.message}")
        elif isinstance(event, UserMessage) and event.attached:
            self._note("\n".join(f"gemtui: {line}" for line in event.attached.splitlines()))
        elif isinstance(event, HookRan):
            self._note(f"gemtui: {event.summary()}")
        elif isinstance(event, ErrorOccurred):
            if not event.parent_id:  # a subagent's failure reaches its report, not the run's
                self.errors.append(event.message)
            level = "warning" if event.kind == "warning" else "error"
            hint = f" {event.hint}" if event.hint else ""
            self._note(f"gemtui: {self._who(event)}{level}: {event.message}{hint}")
        elif isinstance(event, ToolCallStateChanged):
            call, who = event.call, self._who(event)
            self._call_names.setdefault(call.call_id, call.name)
            if call.refusal is Refusal.NEEDS_APPROVAL:
                why = f": {call.approval_reason}" if call.approval_reason else ""
                self._note(
                    f"gemtui: {who}{call.name} was not run: it needs approval{why}. "
                    f"{_how_to_allow(call.kind)}"
                )
            elif call.refusal is Refusal.DENIED:
                self._note(f"gemtui: {who}{call.name} was not run: {call.error}")
        elif isinstance(event, TurnFinished) and event.message:
            self.truncated |= event.finish_reason == "MAX_TOKENS" and not event.parent_id
            self._note(f"gemtui: {event.message}")
        elif isinstance(event, AgentFinished) and not event.parent_id:
            self.finished = event

    def _first(self) -> None:
        if self.on_first_output is not None:
            self.on_first_output()
            self.on_first_output = None

    def __call__(self, event: Event) -> None:
        if self.pipe_broken:
            return
        try:
            self._common(event)
            self.handle(event)
        except BrokenPipeError:  # nobody reads any more: stop quietly, as `head` expects
            self.pipe_broken = True
            if self.on_broken_pipe is not None:
                self.on_broken_pipe()

    def handle(self, event: Event) -> None:
        raise NotImplementedError

    def close(self, error: str | None = None, exit_code: int | None = None) -> None:
        pass


LIVE_LINE_CHARS = 200
"""A live output line on stderr is cut here, so one huge line cannot flood a terminal."""

ARGS_CHARS = 200
"""A call's arguments on stderr are cut here: one line, whatever the model sent."""

_UNSAFE = {c: f"\\u{c:04x}" for c in (*range(0x7F, 0xA0), 0x2028, 0x2029)}
"""What JSON leaves raw but a terminal may act on: DEL, C1 controls (CSI), line separators."""


def one_line_args(args: dict[str, Any]) -> str:
    """The arguments as JSON on one line (newlines and control characters escaped), cut
    at ``ARGS_CHARS``."""
    masked = redact_data(args, keys=True)  # before the cut: half a key is unrecognisable
    text = json.dumps(masked, ensure_ascii=False, default=str).translate(_UNSAFE)
    return text if len(text) <= ARGS_CHARS else text[: ARGS_CHARS - 1] + "…"


class TextFormatter(_Base):
    """The answer as it streams, nothing else on stdout; progress on stderr."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        super().__init__(wrap(out or sys.stdout), err)
        self._ends_with_newline = True
        self._wrote = False
        self._next_turn = False
        """A new model turn began: its text starts a new paragraph."""
        self._live: dict[str, str] = {}
        """The unfinished last line of each running call's output."""
        self._live_masks: dict[str, StreamRedactor] = {}
        """Masking before a long line is cut: a cut key is no longer recognisable."""

    def _live_output(self, event: ToolOutput) -> None:
        """A running command's output, a whole line at a time, indented under its call."""
        text = self._live_masks.setdefault(event.call_id, StreamRedactor()).feed(event.text)
        *lines, rest = (self._live.get(event.call_id, "") + text).split("\n")
        for line in lines:
            self._live_line(line)
        if len(rest) > LIVE_LINE_CHARS:
            self._live_line(rest)
            rest = ""
        self._live[event.call_id] = rest

    def _live_line(self, line: str) -> None:
        line = line.rstrip("\r")
        if len(line) > LIVE_LINE_CHARS:
            line = line[: LIVE_LINE_CHARS - 1] + "…"
        self._note(f"  │ {line}")

    def _end_live(self, call_id: str) -> None:
        masks = self._live_masks.pop(call_id, None)
        rest = self._live.pop(call_id, "") + (masks.finish() if masks is not None else "")
        if rest:
            self._live_line(rest)

    def handle(self, event: Event) -> None:
        if event.parent_id and isinstance(event, ContentDelta | ThoughtDelta):
            return  # a subagent's text reaches the answer only through its report
        if isinstance(event, ContentDelta):
            self._first()
            if self._next_turn and self._wrote:  # each model turn's text its own paragraph
                self.out.write("\n" if self._ends_with_newline else "\n\n")
            self._next_turn, self._wrote = False, True
            self.out.write(event.text)
            self.out.flush()
            self._ends_with_newline = event.text.endswith("\n")
        elif isinstance(event, TurnStarted):
            self._next_turn = True
        elif isinstance(event, StreamRetried):
            if not self._ends_with_newline:
                self.out.write("\n")
            self._ends_with_newline = True
        elif (
            isinstance(event, ToolCallStateChanged) and event.call.state == ToolCallState.EXECUTING
        ):
            self._first()
            call = event.call
            self._note(f"gemtui: {self._who(event)}running {call.name} {one_line_args(call.args)}")
        elif isinstance(event, ToolOutput):
            self._live_output(event)
        elif isinstance(event, ToolCallStateChanged) and event.call.state.terminal:
            self._end_live(event.call.call_id)
        elif isinstance(event, TodosUpdated):
            lines = "".join(f"\n  {line}" for line in event.lines())
            self._note(f"gemtui: todos ({event.done_count()}/{len(event.todos)} done){lines}")

    def close(self, error: str | None = None, exit_code: int | None = None) -> None:
        if not self._ends_with_newline:
            self.out.write("\n")
        finish(self.out)


class JsonFormatter(_Base):
    """One object ``{response, stats, error}`` when the prompt ends."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        super().__init__(out, err)
        self._text: list[str] = []
        self._turn_start = 0
        """Where the model turn in flight began in ``_text`` (a retry discards from here)."""
        self._next_turn = False

    def handle(self, event: Event) -> None:
        if event.parent_id:
            return  # the response is the conversation's; a subagent's report is in it
        if isinstance(event, ContentDelta):
            if self._next_turn and self._text:  # model turns apart, as the text format
                self._text.append("\n\n")
            self._next_turn = False
            self._text.append(event.text)
        elif isinstance(event, TurnStarted):
            self._turn_start, self._next_turn = len(self._text), True
        elif isinstance(event, StreamRetried):  # this turn's partial text is discarded
            del self._text[self._turn_start :]
            self._next_turn = True

    def close(self, error: str | None = None, exit_code: int | None = None) -> None:
        done = self.finished
        obj: dict[str, Any] = {
            "response": "".join(self._text),
            "stats": stats_of(done, self.rate_limits, truncated=self.truncated) if done else {},
            "error": None,
        }
        message = error or (done.error if done else None)
        if message:
            obj["error"] = {"message": message, "code": exit_code}
        self.out.write(json.dumps(redact_data(obj), ensure_ascii=False) + "\n")
        self.out.flush()


class StreamJsonFormatter(_Base):
    """One JSON event per line, flushed as it happens; a subagent's carry ``parent_id``."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        super().__init__(out, err)
        self._answer = StreamRedactor()
        self._thought = StreamRedactor()
        self._subject: str | None = None
        self._children: dict[tuple[str, str], StreamRedactor] = {}
        """Each subagent's held text and thought tails, by (parent id, type)."""

    def _write(self, obj: dict[str, Any]) -> None:
        self._first()
        self.out.write(json.dumps(redact_data(obj), ensure_ascii=False) + "\n")
        self.out.flush()

    def _delta(self, text: str) -> None:
        if text:
            self._write({"type": "message", "role": "assistant", "delta": True, "content": text})

    def _thought_delta(self, text: str) -> None:
        if text:
            self._write({"type": "thought", "subject": self._subject, "content": text})

    def _child_delta(self, parent_id: str, kind: str, text: str) -> None:
        if not text:
            return
        obj: dict[str, Any] = {"type": kind, "content": text, "parent_id": parent_id}
        if kind == "message":
            obj.update(role="assistant", delta=True)
        self._write(obj)

    def _line(self, obj: dict[str, Any]) -> None:
        """A non-delta line: first the deltas' held tails, so the order stays true."""
        self._thought_delta(self._thought.finish())
        self._delta(self._answer.finish())
        for (parent_id, kind), mask in self._children.items():
            self._child_delta(parent_id, kind, mask.finish())
        self._write(obj)

    def handle(self, event: Event) -> None:
        parent_id = event.parent_id
        if parent_id and isinstance(event, ContentDelta | ThoughtDelta):
            kind = "message" if isinstance(event, ContentDelta) else "thought"
            mask = self._children.setdefault((parent_id, kind), StreamRedactor())
            self._child_delta(parent_id, kind, mask.feed(event.text))
        elif isinstance(event, SessionStarted):
            self._line({"type": "init", "session_id": event.session_id, "model": event.model})
        elif isinstance(event, ContentDelta):
            self._thought_delta(self._thought.finish())
            self._delta(self._answer.feed(event.text))
        elif isinstance(event, ThoughtDelta):
            if event.subject != self._subject:
                self._thought_delta(self._thought.finish())
                self._subject = event.subject
            self._thought_delta(self._thought.feed(event.text))
        elif isinstance(event, StreamRetried):
            self._line({"type": "retry", "attempt": event.attempt, "reason": event.reason})
        elif isinstance(event, ToolCallStateChanged):
            self._tool_line(event)
        elif isinstance(event, ErrorOccurred):
            obj = {"type": "error", "message": event.message, "kind": event.kind}
            self._line({**obj, "parent_id": parent_id} if parent_id else obj)
        elif isinstance(event, AgentFinished) and not parent_id:
            self._line(
                {
                    "type": "result",
                    "response": event.text,
                    "stats": stats_of(event, self.rate_limits, truncated=self.truncated),
                }
            )

    def _tool_line(self, event: ToolCallStateChanged) -> None:
        call = event.call
        obj: dict[str, Any]
        if call.state == ToolCallState.VALIDATING:
            args = redact_data(call.args, keys=True)  # the model chose the names too
            obj = {"type": "tool_use", "id": call.call_id, "name": call.name, "args": args}
            if call.repair:
                obj["repair"] = call.repair
        elif call.state.terminal:
            obj = {"type": "tool_result", "id": call.call_id, "status": str(call.state)}
            if call.state == ToolCallState.SUCCESS:
                obj["output"] = call.output
            else:
                obj["error"] = call.error
            if call.refusal is not None:
                obj["refusal"] = str(call.refusal)
                if call.approval_reason:
                    obj["approval_reason"] = call.approval_reason
        else:
            return
        if event.parent_id:
            obj["parent_id"] = event.parent_id
        self._line(obj)

    def close(self, error: str | None = None, exit_code: int | None = None) -> None:
        self._thought_delta(self._thought.finish())
        self._delta(self._answer.finish())
        if error and self.finished is None:
            self._line({"type": "error", "message": error, "code": exit_code})
            self._line({"type": "result", "response": "", "stats": {}, "error": error})


def make_formatter(kind: str, out: TextIO | None = None, err: TextIO | None = None) -> _Base:
    return {"text": TextFormatter, "json": JsonFormatter, "stream-json": StreamJsonFormatter}[kind](
        out, err
    )
