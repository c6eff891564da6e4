"""Approvals as ``session/request_permission``: the policy engine asks, the editor answers.

The scheduler decides what needs a person exactly as in the TUI; this only carries the
question to the client and the answer back through ``Bus.decide``. "Allow always" is the
engine's own (saved like the TUI's); "reject always" is remembered for the session, so
the same tool is refused without asking again. A cancelled request is a rejection.
"""

from __future__ import annotations

import logging

from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from gemtui.bus import ApprovalDecision, Decision, ToolCallSnapshot

__all__ = ["OPTIONS", "Approvals"]

log = logging.getLogger(__name__)

OPTIONS = (
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Always reject", kind="reject_always"),
)


class Approvals:
    """Asks the client about one session's calls and answers the scheduler."""

    def __init__(self, client: Client, session_id: str) -> None:
        self._client = client
        self._session_id = session_id
        self._rejected: set[str] = set()
        """Tools the person said "always reject" to in this session."""

    async def ask(self, call: ToolCallSnapshot, update: ToolCallUpdate) -> Decision:
        if call.name in self._rejected:
            return Decision(ApprovalDecision.REJECT, feedback="The user always rejects this tool.")
        try:
            answer = await self._client.request_permission(
                session_id=self._session_id, tool_call=update, options=list(OPTIONS)
            )
        except Exception:  # a client that cannot answer never approves
            log.exception("request_permission failed")
            return Decision(ApprovalDecision.REJECT, feedback="The editor did not answer.")
        outcome = answer.outcome
        chosen = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        if chosen == "allow_once":
            return Decision(ApprovalDecision.ALLOW_ONCE)
        if chosen == "allow_always":
            return Decision(ApprovalDecision.ALLOW_ALWAYS)
        if chosen == "reject_always":
            self._rejected.add(call.name)
        return Decision(ApprovalDecision.REJECT)
