"""The tool scheduler: a batch of the model's calls in, one functionResponse per call out.

How a batch runs:

* Every call is validated first (known tool, arguments, invocation built); a call that
  fails goes straight to ``error`` and never runs, unless its arguments fail only through
  a near-miss name or JSON in a string: then it runs repaired, and its snapshot says how.
* Every call that needs approval is offered at once (interactive runs), in the model's
  order, so a person sees the whole batch (``n of N``) and can answer it in any order
  or all together. A call whose preview an earlier call could still change (an edit of
  a file an earlier edit touches, or any edit behind a command) is offered only when
  its turn comes, so no diff is approved that is not the one written.
* The calls are dispatched one at a time in the model's order, and policy is asked
  again when a call's turn comes: an "allow for this session" given to an earlier call
  of the batch (or a switch of approval mode) still counts, withdrawing an offer nobody
  answered yet; a deny (plan mode) wins over an answer given before the switch.
* Read-only calls (kinds outside ``MUTATING_KINDS``) run concurrently with each other; a
  mutating call waits for everything started before it, then runs alone, and the next
  call starts only after it ends. Results come back in the model's order.
* Cancel (the ``cancel`` event) resolves a pending approval as cancelled, cancels running
  calls, and starts nothing more. Every call still gets a functionResponse, so history
  never holds a functionCall without its answer.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import posixpath
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from gemtui.bus.bus import EventBus
from gemtui.bus.events import (
    ApprovalDecision,
    Decision,
    Refusal,
    ToolCallSnapshot,
    ToolCallState,
)
from gemtui.scheduler.change_guard import ChangeGuard, may_change_workspace
from gemtui.scheduler.execution import (
    CANCELLED_MESSAGE,
    PartialOutput,
    cancelled_with_output,
    error_parts,
    execute_invocation,
    result_parts,
)
from gemtui.scheduler.policy import PolicyDecision, PolicyEngine, PolicyVerdict
from gemtui.scheduler.policy_scopes import RememberScope
from gemtui.scheduler.state_manager import StateManager
from gemtui.scheduler.states import CallRecord
from gemtui.scheduler.tool_hooks import ToolHooks, run_after_tool, run_before_tool
from gemtui.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from gemtui.tools.validation import repair_args
from gemtui.wire import FunctionCall, Part

__all__ = ["HEADLESS_APPROVAL_MESSAGE", "REJECTED_MESSAGE", "ScheduleResult", "ToolScheduler"]

log = logging.getLogger(__name__)

S = ToolCallState

REJECTED_MESSAGE = "The user rejected this call."
HEADLESS_APPROVAL_MESSAGE = (
    "This call needs approval, and none can be given in non-interactive mode. It was not "
    "run. Continue without it if you can; the person can allow it with a policy rule or "
    "a different --approval-mode."
)


class ToolLookup(Protocol):
    """What the scheduler needs of the tool registry."""

    def get(self, name: str) -> Tool | None: ...

    def names(self) -> Iterable[str]: ...


class ScheduleResult(Struct, frozen=True):
    """A batch's function responses for the model, and whether it was cancelled."""

    parts: list[Part]
    """functionResponse parts (plus binary siblings), in the model's order."""
    cancelled: bool
    snapshots: list[ToolCallSnapshot]
    """The final state of every call, in the model's order."""


class _Batch(Struct):
    state: StateManager
    records: list[CallRecord]
    cancel: asyncio.Event
    running: set[asyncio.Task[None]] = field(default_factory=set)
    offers: dict[str, asyncio.Future[Decision]] = field(default_factory=dict)
    """Approval requests published and not yet taken up by the dispatcher, by call id."""
    printed: dict[str, PartialOutput] = field(default_factory=dict)
    """What each running call has printed, by call id (kept when it is cancelled)."""


_REMEMBERING = frozenset(
    {ApprovalDecision.ALLOW_SESSION, ApprovalDecision.ALLOW_ALWAYS, ApprovalDecision.ALLOW_SERVER}
)
_READ_ONLY_KINDS = frozenset({ToolKind.READ, ToolKind.SEARCH, ToolKind.THINK, ToolKind.FETCH})


def _edit_target(record: CallRecord) -> str | None:
    args = record.invocation.args if record.invocation is not None else record.request.args
    path = (args or {}).get("file_path")
    return posixpath.normpath(path) if isinstance(path, str) and path.strip() else None


def _preview_may_change(records: list[CallRecord], index: int) -> bool:
    """Whether an earlier call of the batch, not run yet, could change what this call's
    preview shows (the file an edit diffs against): then it is asked at its turn."""
    record = records[index]
    if record.tool is None or record.tool.kind is not ToolKind.EDIT:
        return False  # a command, URLs or arguments show what was asked, whatever ran before
    target = _edit_target(record)
    for earlier in records[:index]:
        if earlier.state.terminal or earlier.tool is None:
            continue
        if earlier.tool.kind in _READ_ONLY_KINDS:
            continue
        if earlier.tool.kind is not ToolKind.EDIT:
            return True  # a command or an MCP tool may touch any file
        other = _edit_target(earlier)
        if target is None or other is None or other == target:
            return True
    return False


def _unknown_tool_message(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f'Tool "{name}" not found in registry.{hint}'


class ToolScheduler:
    """Runs the model's tool calls through validation, policy, approval and execution."""

    hooks: ToolHooks | None
    """``BeforeTool`` hooks, asked for each valid call before policy and approval."""

    def __init__(
        self,
        registry: ToolLookup,
        bus: EventBus,
        policy: PolicyEngine,
        context: ToolContext,
        *,
        approval_mode: Callable[[], str] | str = "default",
        interactive: bool = True,
        guard: ChangeGuard | None = None,
        hooks: ToolHooks | None = None,
    ) -> None:
        self.guard = guard
        self.hooks = hooks
        self._registry = registry
        self._bus = bus
        self._policy = policy
        self._context = context
        self._mode: Callable[[], str] = (
            approval_mode if callable(approval_mode) else (lambda: approval_mode)
        )
        self._interactive = interactive
        self._hook_asks: dict[str, str] = {}
        """Calls a BeforeTool hook wants asked about even where policy allows them."""

    async def run(
        self, calls: list[FunctionCall], *, cancel: asyncio.Event | None = None
    ) -> ScheduleResult:
        """Run a batch; every call ends in a terminal state with its response part(s).

        A call without an id (or repeating one already in the batch) gets a generated
        one, written into the given ``FunctionCall`` so the history's call and its
        response agree.
        """
        cancel = cancel if cancel is not None else asyncio.Event()
        batch = _Batch(StateManager(self._bus), [], cancel)
        for call in calls:
            batch.records.append(self._admit(batch.state, call))
        if self.hooks is not None:
            for record in batch.records:
                if not record.state.terminal and not cancel.is_set():
                    why = await run_before_tool(batch.state, record, self.hooks)
                    if why is not None:
                        self._hook_asks[record.call_id] = why
        dispatcher = asyncio.create_task(self._dispatch(batch))
        watcher = asyncio.create_task(cancel.wait())
        try:
            await asyncio.wait({dispatcher, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await self._stop(batch, dispatcher, watcher)
        return ScheduleResult(
            parts=[p for r in batch.records for p in self._parts(r)],
            cancelled=cancel.is_set(),
            snapshots=[r.to_snapshot() for r in batch.records],
        )

    # -- validation ----------------------------------------------------------------------

    def _admit(self, state: StateManager, call: FunctionCall) -> CallRecord:
        """Validate one call and register it: one ``validating`` snapshot, then maybe error."""
        if not call.id or call.id in state:
            call.id = f"{call.name}-{uuid.uuid4().hex[:12]}"
        tool = self._registry.get(call.name)
        invocation = None
        repaired: str | None = None
        if tool is None:
            problem: str | None = _unknown_tool_message(call.name, self._registry.names())
        else:
            args = call.args or {}
            try:
                problem = tool.validate(args)
                if problem is not None:
                    fix = repair_args(tool.parameters, args)
                    if fix is not None and tool.validate(fix.args) is None:
                        # run the repaired call; history shows it, so the model sees the
                        # right names from now on
                        args, problem, repaired = fix.args, None, fix.summary()
                        call.args = args
                if problem is None:
                    invocation = tool.build(args)
            except ToolError as e:
                problem = str(e)
            except Exception as e:  # a tool bug: refuse the call, keep the batch
                log.exception("building %s failed", call.name)
                problem = f"{call.name} could not be prepared: {e}"
        record = CallRecord(request=call, tool=tool, invocation=invocation, repair=repaired)
        state.add(record)
        if problem is not None:
            state.transition(call.id, S.ERROR, error=problem, refusal=Refusal.INVALID)
        return record

    # -- dispatch ------------------------------------------------------------------------

    async def _dispatch(self, batch: _Batch) -> None:
        if self._interactive:
            await self._offer_batch(batch)
        for record in batch.records:
            if record.state.terminal:
                continue
            if batch.cancel.is_set() or not await self._clear(batch, record):
                continue
            assert record.tool is not None
            if record.tool.mutating:
                await self._drain(batch)
                task = self._start(batch, record)
                if task is not None:
                    await asyncio.wait({task})
            else:
                self._start(batch, record)
        await self._drain(batch)

    async def _offer_batch(self, batch: _Batch) -> None:
        """Publish every approval request the batch needs now, in the model's order."""
        for index, record in enumerate(batch.records):
            if batch.cancel.is_set():
                return
            if record.state.terminal or _preview_may_change(batch.records, index):
                continue
            if self._verdict(record).decision is PolicyDecision.ASK:
                future = await self._request(batch, record)
                if future is not None:
                    batch.offers[record.call_id] = future

    def _withdraw(self, batch: _Batch, call_id: str) -> bool:
        """Take back an offer nobody answered (policy settled the call meanwhile)."""
        future = batch.offers.get(call_id)
        if future is None or future.done():
            return False
        del batch.offers[call_id]
        future.cancel()
        return True

    def _withdraw_allowed(self, batch: _Batch) -> None:
        """After a decision saved a rule, offers it now covers leave the queue at once."""
        for call_id in list(batch.offers):
            verdict = self._verdict(batch.state.get(call_id))
            if verdict.decision is PolicyDecision.ALLOW and self._withdraw(batch, call_id):
                batch.state.transition(call_id, S.SCHEDULED, correlation_id=None)

    async def _clear(self, batch: _Batch, record: CallRecord) -> bool:
        """Policy and approval for one call: True when it is scheduled to run."""
        call_id = record.call_id
        if record.state is S.SCHEDULED:  # an offer withdrawn because a rule now allows it
            return True
        verdict = self._verdict(record)
        offered = batch.offers.pop(call_id, None)
        if verdict.decision is PolicyDecision.DENY:
            if offered is not None:
                offered.cancel()
            return self._deny(batch, record, verdict.reason)
        if offered is not None and verdict.decision is PolicyDecision.ALLOW and not offered.done():
            offered.cancel()  # a rule allows it now and nobody answered: withdraw the offer
            batch.state.transition(call_id, S.SCHEDULED, correlation_id=None)
            return True
        if offered is None:
            if verdict.decision is PolicyDecision.ALLOW:
                batch.state.transition(call_id, S.SCHEDULED)
                return True
            if not self._interactive:
                batch.state.transition(
                    call_id,
                    S.ERROR,
                    error=HEADLESS_APPROVAL_MESSAGE,
                    refusal=Refusal.NEEDS_APPROVAL,
                    approval_reason=verdict.reason,
                )
                return False
            offered = await self._request(batch, record)
            if offered is None:
                return False
        decision = await self._answer(offered)
        verdict = self._verdict(record)  # the mode may have changed while the person decided
        if verdict.decision is PolicyDecision.DENY:
            return self._deny(batch, record, verdict.reason)
        return self._apply(batch, record, decision)

    def _verdict(self, record: CallRecord) -> PolicyVerdict:
        assert record.tool is not None
        assert record.invocation is not None
        verdict = self._policy.decide(record.tool, record.invocation.args, self._mode())
        if verdict.decision is PolicyDecision.ALLOW and record.call_id in self._hook_asks:
            reason = self._hook_asks[record.call_id]
            return PolicyVerdict(PolicyDecision.ASK, verdict.rule, reason)
        return verdict

    @staticmethod
    def _deny(batch: _Batch, record: CallRecord, reason: str) -> bool:
        batch.state.transition(
            record.call_id, S.ERROR, error=reason, refusal=Refusal.DENIED, correlation_id=None
        )
        return False

    @staticmethod
    async def _answer(future: asyncio.Future[Decision]) -> Decision:
        try:
            return await future
        finally:
            future.cancel()  # no-op once answered; withdraws the request otherwise

    async def _request(self, batch: _Batch, record: CallRecord) -> asyncio.Future[Decision] | None:
        """Publish one approval request (with its preview); None when the call failed."""
        assert record.tool is not None
        assert record.invocation is not None
        try:
            confirmation = await record.invocation.confirmation(self._context)
        except ToolError as e:
            batch.state.transition(record.call_id, S.ERROR, error=str(e))
            return None
        except Exception as e:
            log.exception("confirmation of %s failed", record.name)
            batch.state.transition(record.call_id, S.ERROR, error=f"{record.name} failed: {e}")
            return None
        if confirmation is not None:
            args = record.invocation.args
            scopes = self._policy.remember_scopes(record.tool, args)
            remembers = (
                (scopes[0][1],)
                if scopes
                else tuple(r.summary() for r in self._policy.suggested_rules(record.tool, args))
            )
            confirmation = replace(confirmation, remembers=remembers, scopes=scopes)
        correlation_id = uuid.uuid4().hex
        # The future exists before the request is published, so an inline subscriber
        # may answer it at once.
        future = self._bus.await_decision(correlation_id)
        batch.state.transition(
            record.call_id,
            S.AWAITING_APPROVAL,
            correlation_id=correlation_id,
            confirmation=confirmation,
        )
        return future

    def _apply(self, batch: _Batch, record: CallRecord, decision: Decision) -> bool:
        assert record.tool is not None
        assert record.invocation is not None
        kind, call_id = decision.decision, record.call_id
        if not kind.allows:
            message = REJECTED_MESSAGE
            if kind is ApprovalDecision.REJECT_WITH_FEEDBACK and decision.feedback:
                message = f"{REJECTED_MESSAGE} Their feedback: {decision.feedback}"
            batch.state.transition(
                call_id,
                S.ERROR,
                error=message,
                decision=kind,
                correlation_id=None,
                refusal=Refusal.REJECTED,
            )
            return False
        try:
            if kind is ApprovalDecision.MODIFY and decision.modified is not None:
                record.invocation.modify(decision.modified)
            elif kind is ApprovalDecision.ALLOW_SESSION:
                self._policy.allow_for_session(record.tool, record.invocation.args, decision.scope)
            elif kind is ApprovalDecision.ALLOW_ALWAYS:
                self._remember(record, scope=decision.scope)
            elif kind is ApprovalDecision.ALLOW_SERVER and record.tool.server is not None:
                self._remember(record, whole_server=True)
            elif kind is ApprovalDecision.ALLOW_SERVER:  # not an MCP tool: this call only
                pass
        except ToolError as e:
            batch.state.transition(
                call_id, S.ERROR, error=str(e), decision=kind, correlation_id=None
            )
            return False
        batch.state.transition(call_id, S.SCHEDULED, decision=kind, correlation_id=None)
        if kind in _REMEMBERING and batch.offers:
            self._withdraw_allowed(batch)
        return True

    def _remember(
        self,
        record: CallRecord,
        *,
        whole_server: bool = False,
        scope: RememberScope | None = None,
    ) -> None:
        assert record.tool is not None
        assert record.invocation is not None
        try:
            self._policy.allow_always(
                record.tool, record.invocation.args, whole_server=whole_server, scope=scope
            )
        except OSError:  # the call was approved; only the saving failed
            log.exception("could not save the policy rule; allowing for this session")
            self._policy.allow_for_session(record.tool, record.invocation.args, scope)

    # -- execution -----------------------------------------------------------------------

    def _start(self, batch: _Batch, record: CallRecord) -> asyncio.Task[None] | None:
        """Start a scheduled call unless cancel is set (checked right here, synchronously)."""
        if batch.cancel.is_set():
            return None
        batch.state.transition(record.call_id, S.EXECUTING)
        task = asyncio.create_task(self._execute(batch, record))
        batch.running.add(task)
        task.add_done_callback(batch.running.discard)
        return task

    async def _execute(self, batch: _Batch, record: CallRecord) -> None:
        assert record.invocation is not None
        printed = batch.printed.setdefault(record.call_id, PartialOutput())
        token = None
        if self.guard is not None and record.tool and may_change_workspace(record.tool):
            token = await self.guard.before(record.tool, record.invocation)
        try:
            outcome = await execute_invocation(
                record.invocation, self._context, self._bus, record.call_id, printed
            )
        finally:
            if token is not None and self.guard is not None:
                await asyncio.shield(self.guard.after(token))
        if self.hooks is not None and outcome.result is not None:
            outcome = await run_after_tool(record, outcome, self.hooks)
        if outcome.error is not None:
            batch.state.transition(
                record.call_id, S.ERROR, error=outcome.error, result=outcome.result
            )
        else:
            batch.state.transition(record.call_id, S.SUCCESS, result=outcome.result)

    @staticmethod
    async def _drain(batch: _Batch) -> None:
        while batch.running:
            await asyncio.wait(set(batch.running))

    # -- ending --------------------------------------------------------------------------

    async def _stop(
        self, batch: _Batch, dispatcher: asyncio.Task[None], watcher: asyncio.Task[Any]
    ) -> None:
        """Cancel what is left, wait for it to unwind, and end every call."""
        watcher.cancel()
        dispatcher.cancel()
        for future in batch.offers.values():
            future.cancel()  # withdraw every request still on offer
        for task in list(batch.running):
            task.cancel()
        results = await asyncio.gather(dispatcher, watcher, *batch.running, return_exceptions=True)
        failure = next((r for r in results if isinstance(r, Exception)), None)
        if failure is not None:
            log.error("tool scheduler failed", exc_info=failure)
        for record in batch.records:
            if not record.state.terminal:
                reason = CANCELLED_MESSAGE
                if failure is not None and not batch.cancel.is_set():
                    reason = f"The call was not run: the scheduler failed ({failure})."
                kept: dict[str, Any] = {}
                printed = batch.printed.get(record.call_id)
                if record.state is S.EXECUTING and printed is not None and printed.text():
                    reason, shown = cancelled_with_output(printed.text())
                    kept["result"] = ToolResult(llm_content=shown, display=shown)
                batch.state.transition(
                    record.call_id, S.CANCELLED, error=reason, correlation_id=None, **kept
                )

    @staticmethod
    def _parts(record: CallRecord) -> list[Part]:
        if record.state is S.SUCCESS and record.result is not None:
            return result_parts(record.call_id, record.request.name, record.result)
        return error_parts(record.call_id, record.request.name, record.error or CANCELLED_MESSAGE)
