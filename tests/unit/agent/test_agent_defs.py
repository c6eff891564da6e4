"""Reading agent definition files: what loads, what is refused and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.agent_defs import load_agents, parse_agent


def _file(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_front_matter_and_body() -> None:
    agent = parse_agent(
        "---\nname: fixer\ndescription: Fixes.\ntools: [read_file, replace]\nmodel: m-1\n"
        "max_turns: 7\ntimeout_mins: 2\ntemperature: 0.2\n---\n\nYou fix things.\n"
    )
    assert (agent.name, agent.description, agent.prompt) == ("fixer", "Fixes.", "You fix things.")
    assert agent.tools == ("read_file", "replace")
    assert (agent.model, agent.max_turns, agent.timeout, agent.temperature) == ("m-1", 7, 120, 0.2)


def test_claude_code_tools_string_and_model_alias() -> None:
    agent = parse_agent(
        "---\nname: rev\ndescription: d\ntools: Read, Grep, Glob, Bash, Edit, Write\n"
        "model: opus\n---\nbody\n",
        claude=True,
    )
    assert agent.tools == (
        "read_file",
        "grep_search",
        "glob",
        "run_shell_command",
        "replace",
        "write_file",
    )
    assert agent.model is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no front matter", "no YAML front matter"),
        ("---\nname: [x\n---\nbody", "bad YAML"),
        ("---\n- a\n---\nbody", "not a mapping"),
        ("---\nname: Bad Name\ndescription: d\n---\nbody", "name 'Bad Name'"),
        ("---\nname: ok\n---\nbody", "description is required"),
        ("---\nname: ok\ndescription: d\n---\n", "body"),
        ("---\nname: ok\ndescription: d\nmax_turns: 0\n---\nb", "max_turns"),
        ("---\nname: ok\ndescription: d\ntemperature: hot\n---\nb", "temperature"),
        ("---\nname: ok\ndescription: d\ntools: {a: 1}\n---\nb", "tools must be"),
        ("---\nname: ok\ndescription: d\ntools: [1]\n---\nb", "tools must be"),
    ],
)
def test_bad_definitions_say_why(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_agent(text)


def test_yaml_cannot_build_objects() -> None:
    with pytest.raises(ValueError, match="bad YAML"):
        parse_agent("---\nname: !!python/object/apply:os.system ['touch x']\n---\nbody")


def test_load_order_trust_reserved_names_and_problems(tmp_path: Path, isolated_home: Path) -> None:
    home, ws = tmp_path / "person", tmp_path / "ws"
    body = "---\ndescription: from {}\n---\nbody\n"
    _file(home / ".gemini" / "agents", "shared", body.format("user"))
    _file(ws / ".gemini" / "agents", "shared", body.format("workspace"))
    _file(ws / ".gemtui" / "agents", "mine", body.format("workspace"))
    _file(home / ".gemini" / "agents", "read_file", body.format("user"))
    broken = _file(home / ".gemini" / "agents", "broken", "---\nname: x\n")
    (home / ".gemini" / "agents" / "huge.md").write_text("x" * 300_000)

    untrusted = load_agents(ws, trusted=False, reserved=frozenset({"read_file"}), home=home)
    assert set(untrusted.agents) == {"codebase_investigator", "generalist", "shared"}
    assert untrusted.agents["shared"].description == "from user"
    assert any(str(broken) in p and "front matter" in p for p in untrusted.problems)
    assert any("'read_file' is the name of a tool" in p for p in untrusted.problems)
    assert any("larger than" in p for p in untrusted.problems)

    trusted = load_agents(ws, trusted=True, reserved=frozenset({"read_file"}), home=home)
    assert trusted.agents["shared"].description == "from workspace"  # the later folder wins
    assert trusted.agents["mine"].source == "workspace"
