"""What a trust covers: every workspace file a trusted session loads, by content hash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gemtui.agent.agent_defs import agent_dirs
from gemtui.agent.skills import skill_dirs
from gemtui.commands.toml_commands import command_dirs
from gemtui.config.paths import workspace_config_file
from gemtui.config.trust import TrustStore, workspace_policy_file, workspace_trust
from gemtui.config.trust_content import (
    WORKSPACE_CODE_DIRS,
    WORKSPACE_CODE_FILES,
    content_changes,
    trusted_content,
)
from gemtui.hooks.config import hook_files

EVERY_KIND = (
    *WORKSPACE_CODE_FILES,
    ".gemini/commands/deploy.toml",
    ".gemtui/commands/nested/deeper/x.toml",
    ".claude/commands/frontend/component.md",
    ".claude/agents/reviewer.md",
    ".gemini/agents/a.md",
    ".gemtui/agents/b.md",
    ".claude/skills/s1/SKILL.md",
    ".gemini/skills/s2/SKILL.md",
    ".agents/skills/s3/SKILL.md",
)


def _only_when_trusted(trusted: list[Path], untrusted: list[Path]) -> set[Path]:
    return set(trusted) - set(untrusted)


def test_the_hashed_set_is_what_the_loaders_read_only_when_trusted(tmp_path: Path) -> None:
    """A loader that starts reading a new workspace file must add it here too."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    files = {ws / name for name in WORKSPACE_CODE_FILES}
    dirs = {ws / folder: pattern for folder, pattern in WORKSPACE_CODE_DIRS}
    hooks = _only_when_trusted(
        hook_files(ws, trusted=True, home=home), hook_files(ws, trusted=False, home=home)
    )
    assert hooks
    assert hooks <= files
    assert {workspace_config_file(ws), workspace_policy_file(ws)} <= files
    commands = _only_when_trusted(
        [d for _, d in command_dirs(ws, trusted=True, home=home)],
        [d for _, d in command_dirs(ws, trusted=False, home=home)],
    )
    assert commands
    assert all(
        dirs.get(d) == ("**/*.md" if d.parent.name == ".claude" else "**/*.toml") for d in commands
    )
    agents = _only_when_trusted(
        [d for _, d, _ in agent_dirs(ws, trusted=True, home=home)],
        [d for _, d, _ in agent_dirs(ws, trusted=False, home=home)],
    )
    assert agents
    assert all(dirs.get(d) == "*.md" for d in agents)
    skills = _only_when_trusted(
        [d for _, d in skill_dirs(ws, trusted=True, home=home)],
        [d for _, d in skill_dirs(ws, trusted=False, home=home)],
    )
    assert skills
    assert all(dirs.get(d) == "*/SKILL.md" for d in skills)


def _trusted_folder(tmp_path: Path) -> tuple[Path, TrustStore]:
    ws = tmp_path / "ws"
    (ws / ".gemtui").mkdir(parents=True)
    (ws / ".gemtui" / "config.toml").write_text("[ui]\nshow_thoughts = false\n")
    store = TrustStore(tmp_path / "config" / "trusted_folders.json")
    store.remember(ws, True)
    assert workspace_trust(ws, store=store).trusted
    return ws, store


@pytest.mark.parametrize("name", EVERY_KIND)
def test_any_file_added_or_changed_after_trust_is_asked_about(tmp_path: Path, name: str) -> None:
    ws, store = _trusted_folder(tmp_path)
    path = ws / name
    path.parent.mkdir(parents=True, exist_ok=True)
    verb = "changed" if path.exists() else "new"
    path.write_text('[[rule]]\ntoolName = "*"\ndecision = "allow"\n')
    trust = workspace_trust(ws, store=store)
    assert not trust.trusted
    assert trust.undecided
    assert f"{verb}: {name}" in trust.changes
    notice = trust.notice("Run with --trust-workspace.")
    assert notice is not None
    assert name in notice
    assert "--trust-workspace" in notice
    store.remember(ws, True, dict(trust.content))  # what the TUI's "trust" records
    assert workspace_trust(ws, store=store).trusted


def test_a_file_removed_is_a_change_and_untrusting_forgets_the_content(tmp_path: Path) -> None:
    ws, store = _trusted_folder(tmp_path)
    (ws / ".gemtui" / "policy.toml").write_text("")
    store.remember(ws, True)
    (ws / ".gemtui" / "policy.toml").unlink()
    assert workspace_trust(ws, store=store).changes == ("removed: .gemtui/policy.toml",)
    store.remember(ws, False)
    assert store.recorded_content(ws) is None


def test_the_flag_trusts_and_records_the_current_content(tmp_path: Path) -> None:
    ws, store = _trusted_folder(tmp_path)
    (ws / ".gemini").mkdir()
    (ws / ".gemini" / "settings.json").write_text('{"hooks": {}}')
    assert workspace_trust(ws, flag=True, store=store).trusted
    assert workspace_trust(ws, store=store).trusted


def test_a_fifo_does_not_block_and_odd_names_stay_one_line(tmp_path: Path) -> None:
    ws, store = _trusted_folder(tmp_path)
    (ws / ".gemtui" / "commands").mkdir()
    os.mkfifo(ws / ".gemtui" / "settings.json")
    (ws / ".gemtui" / "commands" / "a\nb\x1b[2J.toml").write_text("")
    content = trusted_content(ws)
    assert content[".gemtui/settings.json"].startswith("special:")
    changes = workspace_trust(ws, store=store).changes
    assert all("\n" not in line and "\x1b" not in line for line in changes)
    assert any(line.startswith('new: ".gemtui/commands/a\\nb') for line in changes)


def test_long_change_lists_are_cut() -> None:
    current = {f".gemtui/commands/{i}.toml": "x" for i in range(30)}
    lines = content_changes({}, current)
    assert len(lines) == 9
    assert lines[-1] == "and 22 more"
