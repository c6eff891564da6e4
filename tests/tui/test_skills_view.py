"""Agent Skills in the real app (Pilot, mock LLM): ``/skills`` and the activation card."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages


def _notes(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


def _system(request: Any) -> str:
    parts = (request.json.get("systemInstruction") or {}).get("parts", [])
    return "".join(p.get("text", "") for p in parts)


@pytest.fixture
def person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder holding one user skill (``~/.gemini/skills/pdf-tools``)."""
    home = tmp_path / "person"
    folder = home / ".gemini" / "skills" / "pdf-tools"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Fill PDF forms (PDF-DESC).\n---\nPDF-BODY\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("HOME", str(home))
    return home


async def test_skills_list_disable_and_enable_typed_at_the_prompt(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path, person: Path
) -> None:
    mock_llm.enqueue({"text": "one"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"/skills list", "enter")
        await pilot.pause()
        [listing] = [n for n in _notes(app) if n.startswith("Skills")]
        assert "pdf-tools (user, enabled)" in listing
        assert "Fill PDF forms (PDF-DESC)." in listing
        await pilot.press(*"/skills disable pdf-tools", "enter")
        await pilot.pause()
        assert "Skill pdf-tools disabled." in _notes(app)
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
    assert "PDF-DESC" not in _system(mock_llm.requests[0])  # disabled: not offered
    saved = tomllib.loads((isolated_home / "config" / "config.toml").read_text())
    assert saved["skills"]["disabled"] == ["pdf-tools"]  # remembered for later sessions


async def test_activation_card_shows_the_skill_its_purpose_and_folder(
    mock_llm: MockLLMServer, workspace: Path, person: Path
) -> None:
    mock_llm.enqueue(
        {"function_calls": [{"name": "activate_skill", "args": {"name": "pdf-tools"}}]},
        {"text": "done"},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"fill the form", "enter")
        await seen.wait_approvals(1)
        preview = app.main.approvals.query_one("#approval-preview", VerticalScroll)
        text = "\n".join(str(w.content) for w in preview.query(Static))
        assert "Activate skill pdf-tools" in text
        assert "Fill PDF forms (PDF-DESC)." in text
        assert str((person / ".gemini" / "skills" / "pdf-tools").resolve()) in text
        assert len(mock_llm.requests) == 1  # nothing more goes before the person answers
        await pilot.press("f8", "1")  # allow once
        await seen.wait_event(AgentFinished)
    assert "PDF-BODY" in str(mock_llm.requests[1].json["contents"][-1])


async def test_reload_finds_a_new_skill_and_names_a_broken_one(
    mock_llm: MockLLMServer, workspace: Path, person: Path
) -> None:
    from gemtui.bus.events import ErrorOccurred

    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        root = person / ".gemini" / "skills"
        (root / "later").mkdir()
        (root / "later" / "SKILL.md").write_text("---\nname: later\ndescription: L.\n---\n")
        (root / "broken").mkdir()
        broken = root / "broken" / "SKILL.md"
        broken.write_text("---\nname: broken\n---\n")
        await pilot.press(*"/skills reload", "enter")
        await pilot.pause()
        assert "Skills reloaded: 2 enabled, 1 not loaded (see the warnings)." in _notes(app)
        warning = await seen.wait_event(ErrorOccurred)
        assert warning.message.startswith(f"Skill not loaded: {broken}:1: ")
        assert warning.hint == "Fix the file, then /skills reload."
        assert "later: L." in app.session.chat.system_instruction
