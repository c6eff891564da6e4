"""Enter sends the first prompt without waiting for the skills to be found (issue 34).

On a slow machine the engine's start may still run when a person presses Enter 0.6 s
after the screen is drawn; what the first request does not need must not hold it. The
skills (their names in the system instruction, ``activate_skill`` among the tools) are
found once the session starts, and join the requests after they are found. A headless
run, with nobody at a screen, still reads them before its one request.

The hold is the test's: skill discovery (the real one, on the real files) waits at a gate
the test opens, and says when it reached it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent import skill_tool
from gemtui.agent.assembly import RunOptions, build_session, trusted_run
from gemtui.bus.events import AgentFinished
from gemtui.config.ui_choice import read_ui_choice
from gemtui.testing import MockLLMServer
from gemtui.tui.launch import build_app
from tests.integration.helpers import write_fast_config
from tests.tui.helpers import Messages


@dataclass
class HeldSkills:
    """Skill discovery held at a gate until ``release``."""

    entered: threading.Event = field(default_factory=threading.Event)
    """Set once discovery reached the gate (it is held now)."""
    gate: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def held_skills(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldSkills]:
    held = HeldSkills()
    real = skill_tool.load_skills

    def load(*args: Any, **kwargs: Any) -> Any:
        held.entered.set()
        held.gate.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(skill_tool, "load_skills", load)
    try:
        yield held
    finally:
        held.release()  # never leave a discovery blocked behind a failed test


@pytest.fixture
def person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder holding one user skill (``~/.gemini/skills/pelican-facts``)."""
    home = tmp_path / "person"
    folder = home / ".gemini" / "skills" / "pelican-facts"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: pelican-facts\ndescription: Answer questions on pelicans.\n---\nBODY\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("HOME", str(home))
    return home


def _system(server: MockLLMServer, n: int) -> str:
    body = server.requests[n].json or {}
    return "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])


def _tools(server: MockLLMServer, n: int) -> set[str]:
    body = server.requests[n].json or {}
    return {d["name"] for t in body.get("tools", []) for d in t.get("functionDeclarations", [])}


async def test_enter_sends_the_first_prompt_while_skill_discovery_is_held(
    mock_llm: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    person: Path,
    held_skills: HeldSkills,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_fast_config(isolated_home)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm.url)
    mock_llm.enqueue({"text": "First answer."})
    mock_llm.enqueue({"text": "Second answer."})
    ui = read_ui_choice(workspace, trusted=False)
    app = build_app(None, RunOptions(workspace=workspace), ui=ui)  # as `gemtui` starts
    assert not isinstance(app, Exception)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await asyncio.to_thread(held_skills.entered.wait)  # the engine started: held
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
        assert len(mock_llm.requests) == 1, "the first prompt went while discovery was held"
        assert _system(mock_llm, 0).startswith("You are gemtui")
        assert "pelican-facts" not in _system(mock_llm, 0)  # not found yet
        assert "activate_skill" not in _tools(mock_llm, 0)
        assert "read_file" in _tools(mock_llm, 0)  # the tools it needs are all there
        held_skills.release()
        assert app.session is not None
        await app.session.skills.wait_found()  # discovery goes on after the request
        mark = len(seen.seen)
        await pilot.press(*"again", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        assert "pelican-facts" in app.session.skills.enabled  # what /skills lists
    second = _system(mock_llm, 1)
    assert "- pelican-facts: Answer questions on pelicans." in second, "found: they join"
    assert "activate_skill" in _tools(mock_llm, 1)


async def test_control_a_session_built_for_a_run_without_a_screen_waits_for_discovery(
    isolated_home: Path,
    workspace: Path,
    person: Path,
    held_skills: HeldSkills,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hold holds: the build a headless run uses (nobody at a screen) reads the
    skills inside the build, so it returns only after the release, with them found."""
    write_fast_config(isolated_home)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")  # never asked
    run = trusted_run(RunOptions(workspace=workspace, interactive=False))
    building = asyncio.ensure_future(
        asyncio.to_thread(build_session, run.settings(), run.options, trusted=False)
    )
    await asyncio.to_thread(held_skills.entered.wait)
    assert not building.done()  # held inside the build
    held_skills.release()
    built = await building
    try:
        assert "pelican-facts" in built.session.skills.enabled  # found before it returned
    finally:
        await built.session.aclose()
        built.close()
