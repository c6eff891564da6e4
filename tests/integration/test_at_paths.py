"""`@path` attaches the file to the request: through a Session and headless `-p`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.bus import Event, UserMessage
from gemtui.testing import MockLLMServer

from .conftest import SessionFactory
from .helpers import gemtui_env, run_gemtui, write_fast_config


def _user_texts(request_json: dict[str, Any]) -> list[str]:
    return [p.get("text", "") for p in request_json["contents"][-1]["parts"]]


def _project(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("def main():\n    return 'MAIN-BODY'\n")
    (workspace / ".gitignore").write_text("*.secret\n")
    (workspace / "keys.secret").write_text("HIDDEN-KEY\n")


async def test_the_file_is_in_the_request_and_the_transcript_hears_of_it(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    _project(workspace)
    mock_llm.enqueue({"text": "It returns a string."})
    events: list[Event] = []
    session = make_session(events=events)
    await session.send("explain @src/main.py and @keys.secret")
    texts = _user_texts(mock_llm.requests[0].json)
    assert texts[0] == "explain @src/main.py and @keys.secret"
    assert texts[1] == "\n--- Content from referenced files ---\n"
    assert "--- src/main.py ---" in texts[2]
    assert "return 'MAIN-BODY'" in texts[2]
    assert "HIDDEN-KEY" not in mock_llm.requests[0].body.decode()
    [message] = [e for e in events if isinstance(e, UserMessage)]
    assert message.text == "explain @src/main.py and @keys.secret"
    assert "Attached 1 file(s): src/main.py" in message.attached
    assert "@keys.secret" in message.attached
    # the history keeps what the model was sent, so the next turn still has the file
    mock_llm.enqueue({"text": "ok"})
    await session.send("and now?")
    assert "MAIN-BODY" in mock_llm.requests[1].body.decode()


def test_headless_prompt_attaches_the_file(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    _project(workspace)
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "Explained."})
    proc = run_gemtui(
        ["-p", "explain @src/main.py"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Explained."
    assert "gemtui: Attached 1 file(s): src/main.py" in proc.stderr
    texts = _user_texts(mock_llm_thread.requests[0].json)
    assert texts[0] == "explain @src/main.py"
    assert "return 'MAIN-BODY'" in texts[2]


def test_headless_missing_path_is_said_and_the_prompt_still_goes(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "ok"})
    proc = run_gemtui(
        ["-p", "explain @nope.py"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert "@nope.py: no such file or folder" in proc.stderr
    assert _user_texts(mock_llm_thread.requests[0].json) == ["explain @nope.py"]
