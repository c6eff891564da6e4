"""Speaking Claude Code's hook dialect to a hook written for it.

Claude Code's hooks get the same JSON on stdin as Gemini CLI's, but under its own names:
``hook_event_name`` is ``PreToolUse`` (not ``BeforeTool``), ``tool_name`` is ``Bash`` (not
``run_shell_command``). Its answers differ too: ``hookSpecificOutput.permissionDecision``
(``allow``/``deny``/``ask``) with ``permissionDecisionReason`` and ``updatedInput`` for a
tool about to run, the older ``decision: "approve"|"block"``, a ``PostToolUse`` block that
tells the model why without hiding the result, and plain text on stdout that becomes
context for ``UserPromptSubmit`` and ``SessionStart``. A ``Stop`` block is AfterAgent's
deny: the agent goes on with the reason. ``claude_payload`` and ``claude_output`` translate
both ways so the runner only knows Gemini CLI's protocol.
"""

from __future__ import annotations

from typing import Any

from gemtui.hooks.config import CLAUDE_TOOL_NAMES, HookSpec

__all__ = ["claude_output", "claude_payload", "claude_text_output"]

_CONTEXT_EVENTS = ("BeforeAgent", "SessionStart")
"""Events whose plain stdout Claude Code adds to the conversation."""


def claude_payload(spec: HookSpec, payload: dict[str, Any]) -> dict[str, Any]:
    """The stdin a Claude Code hook expects: its event and tool names."""
    out = {**payload, "hook_event_name": spec.alias or payload.get("hook_event_name")}
    tool = payload.get("tool_name")
    if isinstance(tool, str):
        out["tool_name"] = CLAUDE_TOOL_NAMES.get(tool, tool)
    return out


def claude_output(spec: HookSpec, output: dict[str, Any]) -> dict[str, Any]:
    """A Claude Code answer in Gemini CLI's terms (``decision``, ``reason``,
    ``hookSpecificOutput.tool_input`` / ``additionalContext``)."""
    out = dict(output)
    specific = out.get("hookSpecificOutput")
    specific = dict(specific) if isinstance(specific, dict) else {}
    permission = specific.get("permissionDecision")
    if permission in ("allow", "deny", "ask"):
        out["decision"] = permission
        why = specific.get("permissionDecisionReason")
        if isinstance(why, str) and why:
            out["reason"] = why
    elif out.get("decision") == "approve":
        out["decision"] = "allow"
    updated = specific.get("updatedInput")
    if isinstance(updated, dict):
        specific["tool_input"] = updated
    if spec.event == "AfterTool" and out.get("decision") == "block":
        # Claude Code's PostToolUse block tells the model why; the result stays
        out.pop("decision")
        reason = str(out.pop("reason", "") or "")
        more = specific.get("additionalContext")
        specific["additionalContext"] = "\n\n".join(
            t for t in (more if isinstance(more, str) else "", reason) if t
        )
    if specific:
        out["hookSpecificOutput"] = specific
    return out


def claude_text_output(spec: HookSpec, text: str) -> dict[str, Any]:
    """Plain (non-JSON) stdout of a Claude Code hook that exited 0: context for the
    events that take it, otherwise nothing (Claude Code only logs it)."""
    if spec.event in _CONTEXT_EVENTS and text.strip():
        return {"hookSpecificOutput": {"additionalContext": text.strip()}}
    return {}
