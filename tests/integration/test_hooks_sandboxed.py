"""Under -s a project's hooks run in the sandbox; the person's own hooks run outside it.

Live through `gemtui -p` with real bwrap and the real hook runner: hooks from the
workspace's `.gemini/settings.json` (SessionStart and BeforeTool) try to write a marker
outside the workspace and fail under -s, while the person's own hook (their
`~/.gemini/settings.json`) writes its marker; each hook's line on stderr says where it ran.
The control runs the same project hooks without -s: their markers are written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.testing import MockLLMServer

from .helpers import run_gemtui, write_fast_config
from .test_hooks import _before_tool, _env, _settings, _shell

PROJECT_EVENTS = ("SessionStart", "BeforeTool")


def _writes(marker: Path) -> dict[str, str]:
    return {"type": "command", "command": f"echo planted > {marker}; echo '{{}}'"}


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
def test_project_hooks_run_in_the_sandbox_and_the_persons_own_outside(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    sandboxed: bool,
) -> None:
    write_fast_config(isolated_home)
    outside = tmp_path / "outside"
    outside.mkdir()
    project = {
        "SessionStart": [{"hooks": [_writes(outside / "SessionStart")]}],
        "BeforeTool": _before_tool(".*", _writes(outside / "BeforeTool")["command"])["BeforeTool"],
    }
    _settings(isolated_home, project, where=workspace / ".gemini")
    _settings(isolated_home, {"SessionStart": [{"hooks": [_writes(outside / "mine")]}]})
    mock_llm_thread.enqueue(_shell("echo hi"), {"text": "ok"})
    flags = ["-s"] if sandboxed else []
    proc = run_gemtui(
        ["-p", "go", "--yolo", "--trust-workspace", *flags],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert (outside / "mine").read_text() == "planted\n"  # the person's own hook ran outside
    for event in PROJECT_EVENTS:
        assert (outside / event).exists() is not sandboxed, (event, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if "hook " in line]
    assert len(lines) == 3, proc.stderr
    boxed = [line for line in lines if "(in the sandbox)" in line]
    own = [line for line in lines if "(your own hook: outside the sandbox)" in line]
    assert (len(boxed), len(own)) == ((2, 1) if sandboxed else (0, 0)), lines
