"""Context files reach the model in the documented order; /memory refresh and add change
the next request."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.context_files import MEMORY_HEADING
from gemtui.config.settings import Settings
from gemtui.testing import MockLLMServer

from .conftest import SessionFactory


def _system(mock_llm: MockLLMServer, n: int) -> str:
    return str(mock_llm.requests[n].json["systemInstruction"]["parts"][0]["text"])


async def test_recorded_request_holds_the_files_in_order(
    mock_llm: MockLLMServer,
    make_session: SessionFactory,
    workspace: Path,
    isolated_home: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.md").write_text("OUTSIDE-SECRET")
    (tmp_path / ".git").mkdir()  # the git root sits above the workspace
    config = isolated_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "GEMINI.md").write_text("USER-FILE")
    (tmp_path / "GEMINI.md").write_text("ROOT-FILE @docs/extra.md")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "extra.md").write_text("IMPORTED")
    (workspace / "AGENTS.md").write_text("WS-AGENTS @loop.md")
    (workspace / "loop.md").write_text("LOOP @loop.md @leak.md")
    (workspace / "leak.md").symlink_to(outside / "secret.md")
    (workspace / "GEMINI.md").symlink_to(outside / "secret.md")
    (workspace / "CONVENTIONS.md").write_text("WS-CUSTOM")
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "GEMINI.md").write_text("SUBFOLDER-FILE")
    (workspace / "pkg" / "mod.py").write_text("x = 1\n")
    settings = Settings.model_validate({"context": {"fileName": ["CONVENTIONS.md"]}})
    mock_llm.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "pkg/mod.py"}}]},
        {"text": "ok"},
    )
    session = make_session(settings=settings)
    await session.send("hi")
    system = _system(mock_llm, 0)
    order = ["USER-FILE", "ROOT-FILE", "IMPORTED", "WS-AGENTS", "LOOP", "WS-CUSTOM"]
    positions = [system.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert f"--- Context from: {config / 'GEMINI.md'} ---" in system
    assert f"--- Context from: {workspace / 'CONVENTIONS.md'} ---" in system
    assert (
        "<!-- Import refused: @loop.md (import cycle: AGENTS.md -> loop.md -> loop.md) -->"
        in system
    )
    assert "<!-- Import refused: @leak.md (it is outside" in system
    assert "OUTSIDE-SECRET" not in mock_llm.requests[0].body.decode()
    notes = session.context_files.summary()
    assert f"Note: {workspace / 'GEMINI.md'}: refused (it links outside {workspace})" in notes
    assert "import @leak.md refused" in notes
    assert "SUBFOLDER-FILE" not in system
    # read_file went into pkg/: its GEMINI.md joins the next request, last
    after = _system(mock_llm, 1)
    assert after.index("WS-CUSTOM") < after.index("SUBFOLDER-FILE")
    assert "(subfolder" in session.context_files.summary()


async def test_refresh_and_add_reach_the_next_request(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path, isolated_home: Path
) -> None:
    mock_llm.enqueue({"text": "one"}, {"text": "two"}, {"text": "three"})
    session = make_session()
    await session.send("first")
    assert "--- Context from" not in _system(mock_llm, 0)
    (workspace / "GEMINI.md").write_text("NEW RULE")
    session.refresh_context()
    await session.send("second")
    assert "NEW RULE" in _system(mock_llm, 1)
    path = session.add_memory("the person prefers tabs")
    assert path == isolated_home / "config" / "GEMINI.md"
    await session.send("third")
    assert f"{MEMORY_HEADING}\n\n- the person prefers tabs" in _system(mock_llm, 2)
