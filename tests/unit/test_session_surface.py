"""Front ends use only ``Session``'s public surface (issue 34).

The TUI, ACP, headless and the CLI read and command a session through its queries
(``history``, ``model``, ``sandbox``…) and commands (``rewind_history``,
``use_client_io``…), never through the chat, the executor, the tool context or the policy
engine it wires together: those are free to change without a front end noticing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import gemtui

FRONT_ENDS = ("tui", "acp", "headless", "cli", "commands")
"""``commands`` is the agent's, not a front end; it is held to the rule all the same."""
INSIDES = frozenset({"chat", "executor", "tool_context", "policy"})
"""What a session wires together and keeps to itself."""


def _names_a_session(node: ast.expr) -> bool:
    """``session``, ``app.session``, ``conv.session``, ``self._session``…"""
    if isinstance(node, ast.Name):
        return node.id.lower().endswith("session")
    if isinstance(node, ast.Attribute):
        return node.attr.lower().endswith("session")
    return False


def reach_ins(source: str, filename: str = "<source>") -> list[str]:
    """Each ``<session>.chat``-like access in ``source``, as ``file:line: text``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in INSIDES
            and _names_a_session(node.value)
        ):
            found.append(f"{filename}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_front_ends_use_only_the_session_surface() -> None:
    root = Path(gemtui.__file__).parent
    found = [
        hit
        for package in FRONT_ENDS
        for path in sorted((root / package).rglob("*.py"))
        for hit in reach_ins(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
    ]
    assert not found, "front ends reach into the session:\n" + "\n".join(found)


def test_the_check_catches_a_planted_reach_in() -> None:
    planted = """
def f(app, conv, session, self):
    app.session.chat.history
    conv.session.tool_context.files = None
    self.session.executor.config
    session.chat.model
    app.main._session.policy.rules()
"""
    assert [hit.split(": ", 1)[1] for hit in reach_ins(planted)] == [
        "app.session.chat",
        "conv.session.tool_context",
        "self.session.executor",
        "session.chat",
        "app.main._session.policy",
    ]


def test_the_check_lets_the_surface_and_other_objects_through() -> None:
    """The control: the same names on the surface, or on what is not a session, pass."""
    allowed = """
def f(app, session, self, executor):
    app.session.history
    session.model
    self.chat.history
    executor.config
    app.sessions.chat
"""
    assert reach_ins(allowed) == []
