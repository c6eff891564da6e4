"""The agent loop: user input → model turn → tools → next turn, until a terminate reason.

Chat mode ends when the model stops calling tools; task mode ends when it calls
``complete_task`` with output that validates against the task's schema. User cancel and
the timeout are one combined cancellation (``cancel``). Task mode gets one recovery turn
with a grace period after TIMEOUT, MAX_TURNS or a missing complete_task call.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator
from typing import Any

from msgspec.structs import replace
from pydantic import ValidationError

from gemtui.agent.after_agent import check_answer
from gemtui.agent.budget import report_side_call
from gemtui.agent.budget_ask import budget_stop, compressed
from gemtui.agent.cancellable import until_cancelled
from gemtui.agent.error_text import explain
from gemtui.agent.fallback_switch import fall_back
from gemtui.agent.loop_detector import LoopDetector
from gemtui.agent.outcome import exit_code_for, join_turns
from gemtui.agent.prices import cost_of, price_for
from gemtui.agent.prompt_checks import model_goes_on, route_prompt
from gemtui.agent.run_state import (
    ExecutorConfig,
    RunState,
    ScheduleOutcome,
    ToolRunner,
    TurnOutcome,
    with_reports,
)
from gemtui.agent.stream_loop import StreamLoopDetector
from gemtui.agent.subagent_usage import SubagentTally
from gemtui.agent.token_estimate import estimate_request_tokens, request_overhead_tokens
from gemtui.bus import (
    AgentFinished,
    Citation,
    ContentDelta,
    ErrorOccurred,
    EventBus,
    HistoryCompressed,
    LoopDetected,
    StreamRetried,
    TerminateReason,
    ThoughtDelta,
    TurnFinished,
    TurnStarted,
    UserMessage,
    current_prompt_id,
)
from gemtui.chat.chat import Chat
from gemtui.chat.compression import compress_history, over_threshold
from gemtui.chat.turn import (
    CitationEvent,
    ContentEvent,
    ErrorEvent,
    FinishedEvent,
    InvalidStreamEvent,
    RetryEvent,
    ThoughtEvent,
    ToolCallRequestEvent,
    Turn,
    TurnEvent,
    UserCancelledEvent,
)
from gemtui.errors import HookStoppedError
from gemtui.scheduler.execution import calls_refused, result_parts
from gemtui.tools.base import ToolResult
from gemtui.wire import (
    Content,
    FunctionCall,
    FunctionDeclaration,
    Part,
)

__all__ = ["COMPLETE_TASK", "Executor", "ExecutorConfig", "ScheduleOutcome", "ToolRunner"]

COMPLETE_TASK = "complete_task"


class Executor:
    """The agent loop of one prompt: model turns and tool calls until the model is done."""

    def __init__(
        self,
        chat: Chat,
        tools: ToolRunner,
        bus: EventBus,
        config: ExecutorConfig | None = None,
    ) -> None:
        self.chat = chat
        self.tools = tools
        self.bus = bus
        self.config = config or ExecutorConfig()
        self.prompt_count = 0
        self.last_prompt_tokens: int = 0
        """Prompt size of the latest turn (from usage): decides when to compress."""
        self._next_compression_at = 0
        """No automatic compression below this prompt size (after a failed attempt)."""
        self.spent_models: set[str] = set()
        """Models that answered 429 after their retries this session: the router skips them."""
        if self.config.output_schema is not None:
            self.chat.declarations = [
                d for d in self.chat.declarations if d.name != COMPLETE_TASK
            ] + [self._complete_task_declaration()]

    def _complete_task_declaration(self) -> FunctionDeclaration:
        assert self.config.output_schema is not None
        return FunctionDeclaration(
            name=COMPLETE_TASK,
            description="Call this exactly once when the task is done, with the final output.",
            parameters_json_schema={
                "type": "object",
                "properties": {"output": self.config.output_schema.model_json_schema()},
                "required": ["output"],
            },
        )

    def prompt_tokens(self) -> int:
        """The size of the conversation's next request: the last one the provider reported
        (or a compression measured), else the estimate. The context line shows this figure
        and the compression threshold is measured against it, so the two never disagree."""
        return self.last_prompt_tokens or estimate_request_tokens(self.chat)

    async def compress(self, *, force: bool = False) -> None:
        """Compress when due (or forced). A failed or useless attempt is not repeated
        until the prompt has grown by a fifth, so it never costs a model call per turn."""
        prompt_tokens = self.prompt_tokens()
        if not self.chat.history or (not force and prompt_tokens < self._next_compression_at):
            return
        if not force and self.config.agent_hooks is not None:  # /compress says "manual"
            await self.config.agent_hooks.advise("PreCompress", {"trigger": "auto"})
        try:
            result = await compress_history(
                self.chat,
                context_window=self.config.context_window,
                threshold=self.config.compression_threshold,
                preserve=self.config.compression_preserve,
                force=force,
                prompt_tokens=prompt_tokens,
            )
        except Exception:
            self._next_compression_at = int(prompt_tokens * 1.2)
            raise
        if result is not None and (result.usage.input or result.usage.output):
            report_side_call(self.bus, self.chat.model, result.usage, self.config.prices)
        if result is not None and not result.compressed:
            self._next_compression_at = int(prompt_tokens * 1.2)
        if result is not None and (result.compressed or force):
            overhead = request_overhead_tokens(self.chat)  # the figures are request sizes
            if result.compressed:  # the next request is the compressed one: measure by it
                self.last_prompt_tokens = result.tokens_after + overhead
            self.bus.emit(
                HistoryCompressed,
                tokens_before=result.tokens_before + overhead,
                tokens_after=result.tokens_after + overhead,
            )

    async def run(
        self, prompt: str | list[Part], *, cancel: asyncio.Event | None = None, attached: str = ""
    ) -> AgentFinished:
        """Handle one user prompt to the end; never raises for model or tool failures.

        ``prompt`` as parts (files attached) is announced with its first part's text and
        ``attached`` saying what came with it."""
        self.prompt_count += 1
        prompt_id = f"{self.bus.session_id}#{self.prompt_count}"
        token = current_prompt_id.set(prompt_id)
        cancel = cancel or asyncio.Event()
        started = time.monotonic()
        state = RunState()
        timer: asyncio.TimerHandle | None = None
        if self.config.timeout is not None:

            def on_timeout() -> None:
                state.timed_out = True
                cancel.set()

            timer = asyncio.get_running_loop().call_later(self.config.timeout, on_timeout)
        subagents = SubagentTally(self.bus, prompt_id, state.count_subagent)
        try:
            parts = [Part(text=prompt)] if isinstance(prompt, str) else prompt
            text = prompt if isinstance(prompt, str) else (parts[0].text or "" if parts else "")
            self.bus.emit(UserMessage, text=text, attached=attached)
            if self.config.router is not None:
                await route_prompt(
                    self.chat,
                    self.bus,
                    self.spent_models,
                    self.config,
                    parts,
                    state,
                    prompt_id,
                    cancel,
                )
            message = Content(role="user", parts=parts)
            hooks = self.config.agent_hooks
            if hooks is not None:
                hooks.stopped = None  # a new prompt: no hook stopped it yet
            reason, output = await self._loop(message, cancel, state)
            if hooks is not None and self.config.output_schema is None:  # chat mode
                reason = await check_answer(
                    hooks,
                    self.bus,
                    text,
                    reason,
                    lambda: join_turns(state.text),
                    lambda again: self._loop(again, cancel, state),
                    lambda: self.chat.replace_history([], "clear"),  # the views keep theirs
                )
            recoverable = (
                TerminateReason.TIMEOUT,
                TerminateReason.MAX_TURNS,
                TerminateReason.ERROR_NO_COMPLETE_TASK_CALL,
            )
            if reason in recoverable and self.config.output_schema is not None:
                reason, output = await self._recover(reason, state, cancel)
            self._answer_dangling(reason)
            if reason == TerminateReason.ABORTED:  # after the answers: those lead a turn
                self.chat.record_cancelled(message)
        finally:
            subagents.close()
            if timer is not None:
                timer.cancel()
            current_prompt_id.reset(token)
        return self.bus.emit(
            AgentFinished,
            prompt_id=prompt_id,
            reason=reason,
            text=join_turns(state.text),
            usage=state.usage,
            turns=state.turns,
            duration_ms=(time.monotonic() - started) * 1000,
            usage_by_model=dict(state.usage_by_model),
            error=str(state.error) if state.error else None,
            output=output,
            exit_code=exit_code_for(reason, state.error),
            cost=state.cost,
            usage_by_agent=dict(subagents.usage),
            cost_by_agent=dict(subagents.cost),
            turns_by_agent=dict(subagents.turns),
            fallbacks=tuple(state.fallbacks),
        )

    async def _recover(
        self, reason: TerminateReason, state: RunState, cancel: asyncio.Event
    ) -> tuple[TerminateReason, Any]:
        """One last turn, with a grace period, asking the model to finish with complete_task."""
        why = {
            TerminateReason.TIMEOUT: "You ran out of time.",
            TerminateReason.MAX_TURNS: "You reached the maximum number of turns.",
        }.get(reason, "You stopped without calling complete_task.")
        message = Content.user(
            f"{why} Call {COMPLETE_TASK} now with your best final output. Do not call other tools."
        )
        if state.timed_out is False and cancel.is_set():
            return reason, None  # the person cancelled: no recovery turn
        grace = asyncio.Event()
        handle = asyncio.get_running_loop().call_later(self.config.grace_period, grace.set)
        relay = asyncio.ensure_future(cancel.wait()) if not cancel.is_set() else None
        if relay is not None:
            relay.add_done_callback(lambda _f: grace.set())
        try:
            new_reason, output = await self._loop(message, grace, state, max_turns=1)
        finally:
            handle.cancel()
            if relay is not None:
                relay.cancel()
        if new_reason == TerminateReason.GOAL:
            return new_reason, output
        return reason, None

    async def _loop(
        self,
        message: Content,
        cancel: asyncio.Event,
        state: RunState,
        max_turns: int | None = None,
    ) -> tuple[TerminateReason, Any]:
        """Turns until the model stops calling tools, or something ends the prompt."""
        detector = LoopDetector()
        limit = self.config.max_turns if max_turns is None else max_turns
        local_turns = continues = 0
        while True:
            message = with_reports(self.config.inbox, message)
            stop = await self._before_turn(message, cancel, state, local_turns, limit)
            if stop is not None:
                return stop, None
            local_turns += 1
            state.turns += 1
            outcome = await self._stream_turn(message, cancel, state)
            if outcome.reason == TerminateReason.ERROR and await self._fall_back(state):
                state.turns -= 1
                local_turns -= 1
                continue
            state.text.append("".join(outcome.text))
            stop = self._after_turn(outcome, state, detector)
            more = stop == TerminateReason.GOAL and continues < self.config.max_continues
            if more and await model_goes_on(self.config, self.chat, outcome, cancel, state):
                from gemtui.agent.next_speaker import CONTINUE  # only when its check is on

                continues += 1
                message = Content.user(CONTINUE)
                continue
            if stop == TerminateReason.GOAL and self.config.inbox is not None:
                if await self.config.inbox.next_report(cancel):  # a background report
                    message = Content(role="user", parts=[])
                    continue
                if cancel.is_set():
                    return self._cancel_reason(state), None
            if stop is not None:
                return stop, None
            ended, output, message = await self._answer_calls(outcome.calls, cancel, state)
            if ended is not None:
                return ended, output

    async def _before_turn(
        self,
        message: Content,
        cancel: asyncio.Event,
        state: RunState,
        turns: int,
        limit: int,
    ) -> TerminateReason | None:
        """Cancel, the turn limit and compression; the pending tool results join the
        history either way (saved before the next answer, never left unanswered)."""
        stop: TerminateReason | None = None
        budget, priced = self.config.budget, (self.chat.model, self.config.prices)
        if cancel.is_set():
            stop = self._cancel_reason(state)
        elif self.config.agent_hooks is not None and self.config.agent_hooks.stopped:
            stop = TerminateReason.GOAL  # a hook's continue: false ends the prompt as done
        elif limit >= 0 and turns >= limit:
            stop = TerminateReason.MAX_TURNS
        elif budget and (stopped := await budget_stop(budget, self.bus, *priced, cancel, state)):
            stop = stopped  # past a cap: exit 54 headless; the TUI asks (raise or stop)
        else:  # compression (a model call of its own) may pass a cap: checked again
            stop = await compressed(
                self._compress_unless_cancelled, budget, self.bus, *priced, cancel, state
            )
        self._park(message)
        return stop

    async def _stream_turn(
        self, message: Content, cancel: asyncio.Event, state: RunState
    ) -> TurnOutcome:
        """One model call, stopped at once by a cancel (even mid-wait for a retry)."""
        self.bus.emit(TurnStarted, turn=state.turns, model=self.chat.model)
        turn = Turn(self.chat, current_prompt_id.get(), cancel)
        outcome = TurnOutcome()
        consume = asyncio.create_task(self._consume_turn(turn, message, state, outcome))
        waiter = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait({consume, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            consume.cancel()
            raise
        finally:
            waiter.cancel()
        if not consume.done():
            # cancelled while waiting on the model (a retry wait, a slow chunk): stop now
            consume.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await consume
            outcome.reason = self._cancel_reason(state)
        else:
            consume.result()
        cut_short = (TerminateReason.ABORTED, TerminateReason.TIMEOUT, TerminateReason.LOOP)
        if outcome.reason in cut_short:
            self._count_cut_short(turn, state)
        return outcome

    def _count_cut_short(self, turn: Turn, state: RunState) -> None:
        """A call stopped mid-answer was still billed: its usage so far reaches the totals
        (and every view) through the same ``TurnFinished`` a completed call sends."""
        usage = turn.partial_usage()
        if usage is None:
            return
        if not usage.input:  # the provider had not said yet: about four characters a token
            estimated = estimate_request_tokens(self.chat)
            usage = replace(usage, input=estimated, total=usage.total + estimated)
        self._add_usage(state, FinishedEvent("CANCELLED", usage, None))
        cost = cost_of(usage, price_for(self.chat.model, self.config.prices))
        if cost is not None:
            state.cost = (state.cost or 0.0) + cost
        self.bus.emit(
            TurnFinished, finish_reason="CANCELLED", usage=usage, model=self.chat.model, cost=cost
        )

    def _after_turn(
        self, outcome: TurnOutcome, state: RunState, detector: LoopDetector
    ) -> TerminateReason | None:
        """Whether the prompt ends after this answer: an error, a loop, or no more calls."""
        calls = outcome.calls
        if outcome.reason is not None:
            if state.error is not None:
                err = state.error
                message, hint = str(err), None
                if self.config.error_context is not None:
                    ctx = replace(self.config.error_context(), exhausted=tuple(state.exhausted))
                    message, hint = explain(err, ctx)
                hint = " ".join(h for h in (hint, state.fallback_note) if h) or None
                self.bus.emit(ErrorOccurred, message=message, kind=type(err).__name__, hint=hint)
            return outcome.reason
        loop_msg = detector.observe_text("".join(outcome.text)) if not calls else None
        for call in calls:
            loop_msg = loop_msg or detector.observe_call(call)
        if loop_msg:
            self.bus.emit(LoopDetected, message=loop_msg)
            if calls:
                self._answer_unrun(calls, "Stopped: " + loop_msg)
            return TerminateReason.LOOP
        if not calls:
            if self.config.output_schema is not None:
                return TerminateReason.ERROR_NO_COMPLETE_TASK_CALL
            return TerminateReason.GOAL
        return None

    async def _answer_calls(
        self, calls: list[FunctionCall], cancel: asyncio.Event, state: RunState
    ) -> tuple[TerminateReason | None, Any, Content]:
        """Run the model's calls; the message of their results goes with the next turn
        (or the reason the prompt ends here, with task mode's output)."""
        complete = [c for c in calls if c.name == COMPLETE_TASK]
        others = [c for c in calls if c.name != COMPLETE_TASK]
        response_parts: list[Part] = []
        if others:
            scheduled = await self.tools.run(others, cancel=cancel)
            response_parts.extend(scheduled.parts)
            if scheduled.cancelled:
                response_parts.extend(calls_refused(complete, "Cancelled."))
                message = Content(role="user", parts=response_parts)
                self.chat.add_tool_responses(message)
                return self._cancel_reason(state), None, message
        if complete and self.config.output_schema is not None:
            call = complete[0]
            response_parts.extend(calls_refused(complete[1:], "complete_task was already called."))
            try:
                output = self.config.output_schema.model_validate(call.args.get("output"))
            except ValidationError as exc:
                response_parts.extend(calls_refused([call], f"Output failed validation: {exc}"))
            else:
                response_parts.extend(
                    result_parts(call.id or call.name, call.name, ToolResult("Task completed."))
                )
                message = Content(role="user", parts=response_parts)
                self.chat.add_tool_responses(message)
                return TerminateReason.GOAL, output, message
        elif complete:
            response_parts.extend(calls_refused(complete, "complete_task is only for task mode."))
        return None, None, Content(role="user", parts=response_parts)

    def _compression_due(self) -> bool:
        """The cheap check run before every turn (no task, no model call)."""
        prompt_tokens = self.prompt_tokens()
        if prompt_tokens < self._next_compression_at:
            return False
        return over_threshold(
            prompt_tokens,
            threshold=self.config.compression_threshold,
            context_window=self.config.context_window,
        )

    async def _compress_unless_cancelled(self, cancel: asyncio.Event) -> bool:
        """Best-effort compression before a turn; False when a cancel came meanwhile."""
        if not self._compression_due():
            return not cancel.is_set()
        try:
            finished = await until_cancelled(self.compress(), cancel)
        except Exception as exc:  # compression is best effort
            self.bus.emit(
                ErrorOccurred, message=f"History compression failed: {exc}", kind="warning"
            )
            return not cancel.is_set()
        return finished is not None and not cancel.is_set()

    def _answer_dangling(self, reason: TerminateReason) -> None:
        """A loop that ended after the model's calls were recorded answers them all."""
        if not self.chat.history:
            return
        last = self.chat.history[-1]
        calls = [p.function_call for p in last.parts if p.function_call is not None]
        if last.role != "model" or not calls:
            return
        why = {
            TerminateReason.ABORTED: "Cancelled by the user.",
            TerminateReason.TIMEOUT: "Not run: the time limit was reached.",
        }.get(reason, f"Not run: the turn ended ({reason}).")
        self._answer_unrun(calls, why)

    async def _consume_turn(
        self, turn: Turn, message: Content, state: RunState, out: TurnOutcome
    ) -> None:
        """Publish one turn's events; record calls, text and how it ended in ``out``.

        An answer that starts repeating itself is cut here: the stream is closed (what
        arrived stays in history, as after a cancel) and the prompt ends with LOOP."""
        looping = StreamLoopDetector() if self.config.stream_loop_detection else None
        events = turn.run(message)
        try:
            await self._publish(events, looping, state, out)
        finally:
            await events.aclose()

    async def _publish(
        self,
        events: AsyncGenerator[TurnEvent, None],
        looping: StreamLoopDetector | None,
        state: RunState,
        out: TurnOutcome,
    ) -> None:
        async for ev in events:
            if isinstance(ev, ContentEvent):
                text, loop_msg = ev.text, None
                if looping is not None:
                    loop_msg, used = looping.feed_until_loop(text)
                    text = text[:used]  # a batch is shown up to where the loop was seen
                out.text.append(text)
                self.bus.emit(ContentDelta, text=text)
                if loop_msg:
                    self.chat.answer_cut = sum(len(t) for t in out.text)  # kept as shown
                    self.bus.emit(LoopDetected, message=loop_msg)
                    out.reason = TerminateReason.LOOP
                    return
            elif isinstance(ev, ThoughtEvent):
                self.bus.emit(ThoughtDelta, text=ev.text, subject=ev.subject)
            elif isinstance(ev, ToolCallRequestEvent):
                out.calls.append(ev.call)
            elif isinstance(ev, RetryEvent):
                out.text.clear()
                out.calls.clear()
                if looping is not None:
                    looping.reset()
                self.bus.emit(StreamRetried, attempt=ev.attempt, reason=ev.reason)
            elif isinstance(ev, CitationEvent):
                self.bus.emit(Citation, text=ev.text)
            elif isinstance(ev, FinishedEvent):
                self._add_usage(state, ev)
                cost = cost_of(ev.usage, price_for(self.chat.model, self.config.prices))
                if cost is not None:
                    state.cost = (state.cost or 0.0) + cost
                self.bus.emit(
                    TurnFinished,
                    finish_reason=ev.reason,
                    usage=ev.usage,
                    model=self.chat.model,
                    message=ev.message,
                    cost=cost,
                )
            elif isinstance(ev, UserCancelledEvent):
                out.reason = self._cancel_reason(state)
                return
            elif isinstance(ev, ErrorEvent) and isinstance(ev.error, HookStoppedError):
                out.reason = TerminateReason.GOAL  # a hook's continue: false ends it, done
                return
            elif isinstance(ev, (ErrorEvent, InvalidStreamEvent)):
                err = ev.error if isinstance(ev, ErrorEvent) else RuntimeError(ev.reason)
                state.error = err
                out.reason = TerminateReason.ERROR
                return

    async def _fall_back(self, state: RunState) -> bool:
        """Quota out or model overloaded: on to the next fallback model, if allowed."""
        return await fall_back(self.chat, self.config, state, self.spent_models, self.bus)

    def _park(self, message: Content) -> None:
        """Keep tool results that no turn will send, so no call is left unanswered."""
        if self.chat.history and self.chat.history[-1] is message:
            return
        if any(p.function_response is not None for p in message.parts):
            self.chat.add_tool_responses(message)

    def _answer_unrun(self, calls: list[FunctionCall], why: str) -> None:
        self.chat.add_tool_responses(calls_refused(calls, why))

    @staticmethod
    def _cancel_reason(state: RunState) -> TerminateReason:
        return TerminateReason.TIMEOUT if state.timed_out else TerminateReason.ABORTED

    def _add_usage(self, state: RunState, ev: FinishedEvent) -> None:
        if ev.usage.input:
            self.last_prompt_tokens = ev.usage.input
        state.add(self.chat.model, ev.usage)
