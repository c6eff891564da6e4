"""'Allow always' never writes a known secret into the policy file."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_tools import make_tool

from gemtui.scheduler import PolicyDecision, PolicyEngine
from gemtui.tools.base import ToolKind

SHELL = make_tool("run_shell_command", ToolKind.EXECUTE)
KEY = "AIzaSyPolicy-0123456789abcdefgh"


def test_a_rule_holding_a_key_lasts_for_the_session_and_never_reaches_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    policy_file = tmp_path / "policy.toml"
    engine = PolicyEngine(user_policy_file=policy_file)
    command = f"./deploy-{KEY}.sh --prod"  # the saved prefix would be the script's name
    engine.allow_always(SHELL, {"command": command})
    engine.allow_always(SHELL, {"command": "cargo build"})
    assert engine.decide(SHELL, {"command": command}, "default").decision is PolicyDecision.ALLOW
    text = policy_file.read_text(encoding="utf-8")
    assert KEY not in text
    assert "cargo build" in text
    again = PolicyEngine(user_policy_file=policy_file)  # a restart: the key's rule is gone
    assert again.decide(SHELL, {"command": command}, "default").decision is PolicyDecision.ASK
