"""Tool-call scheduling: states, the single state writer, policy, execution, orchestration.

The public surface is what the agent and the views need: ``ToolScheduler`` to run a
batch, ``PolicyEngine`` and its rules, and the record/transition rules for tests and
tools that render call state.
"""

from gemtui.scheduler.execution import (
    CANCELLED_MESSAGE,
    ExecutionOutcome,
    error_parts,
    execute_invocation,
    result_parts,
)
from gemtui.scheduler.orchestration import (
    HEADLESS_APPROVAL_MESSAGE,
    REJECTED_MESSAGE,
    ScheduleResult,
    ToolLookup,
    ToolScheduler,
)
from gemtui.scheduler.policy import (
    BUILTIN_RULES,
    READ_ONLY_KINDS,
    PolicyDecision,
    PolicyEngine,
    PolicyRule,
    PolicyVerdict,
    RuleBook,
    RuleSource,
    normalize_mode,
)
from gemtui.scheduler.policy_file import load_policy_file
from gemtui.scheduler.state_manager import StateManager
from gemtui.scheduler.states import (
    TRANSITIONS,
    CallRecord,
    InvalidTransitionError,
    check_transition,
)

__all__ = [
    "BUILTIN_RULES",
    "CANCELLED_MESSAGE",
    "HEADLESS_APPROVAL_MESSAGE",
    "READ_ONLY_KINDS",
    "REJECTED_MESSAGE",
    "TRANSITIONS",
    "CallRecord",
    "ExecutionOutcome",
    "InvalidTransitionError",
    "PolicyDecision",
    "PolicyEngine",
    "PolicyRule",
    "PolicyVerdict",
    "RuleBook",
    "RuleSource",
    "ScheduleResult",
    "StateManager",
    "ToolLookup",
    "ToolScheduler",
    "check_transition",
    "error_parts",
    "execute_invocation",
    "load_policy_file",
    "normalize_mode",
    "result_parts",
]
