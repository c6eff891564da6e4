"""A background command's output never keeps a secret on disk, live through `gemtui -p`.

The background command prints the session's API key (in two writes); a foreground command
of the same run then finds its log wherever it is (``$TMPDIR`` or gemtui's data folder)
and reports what the file holds and its modes. After the run, no file under ``$TMPDIR`` or
GEMTUI_HOME holds the key and the log is gone.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config
from .test_secrets_masked import MASK, assert_nothing_leaks

KEY = "AIzaSyBACKGROUND-0123456789abcdefghijk"

PRINTS_THE_KEY = (
    'printf "key=%s" "${GEMINI_API_KEY:0:14}"; printf "%s\\n" "${GEMINI_API_KEY:14}"; '
    'echo "bg-$((40 + 2))-done"; exec sleep 1000'
)
"""Half the key, the other half in a second write, then a marker (spelled so that the
command's own text, stored in the session, does not contain it)."""

INSPECTS_THE_LOG = (
    'm="bg-$((40 + 2))-done"; '
    'until f=$(grep -rlF "$m" "$TMPDIR" "$GEMTUI_HOME/data" 2>/dev/null | head -n1)'
    ' && [ -n "$f" ]; do :; done; '
    'echo "path=$f"; stat -c "mode=%a" "$f"; stat -c "dir=%a" "$(dirname "$f")"; '
    'grep -qF "$GEMINI_API_KEY" "$f" && echo RAW-KEY-IN-FILE || echo no-raw-key; '
    "grep -o 'key=.*' \"$f\""
)
"""Waits until the log holds the marker (no clock), then says what the file holds;
the marker is spelled out only when it runs, so no stored command text matches it."""


def _call(call_id: str, **args: Any) -> dict[str, Any]:
    return {"name": "run_shell_command", "args": args, "id": call_id}


def test_background_output_is_masked_0600_in_the_data_folder_and_removed_at_the_end(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    mock_llm_thread.enqueue(
        {"function_calls": [_call("bg", command=PRINTS_THE_KEY, is_background=True)]},
        {"function_calls": [_call("look", command=INSPECTS_THE_LOG)]},
        {"text": "done"},
    )
    env = {**gemtui_env(isolated_home, mock_llm_thread.url, key=KEY), "TMPDIR": str(tmpdir)}
    proc = run_gemtui(
        ["-p", "start it", "-y", "--output-format", "stream-json"], env=env, cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    results = {e["id"]: e for e in events if e["type"] == "tool_result"}
    seen = str(results["look"].get("output"))
    # the control: the key really was printed, and the file holds the mask in its place
    assert f"key={MASK}" in seen, seen
    assert "no-raw-key" in seen, seen
    assert "mode=600" in seen, seen
    assert "dir=700" in seen, seen
    [log] = [line[len("path=") :] for line in seen.splitlines() if line.startswith("path=")]
    assert Path(log).is_relative_to(isolated_home / "data"), log
    assert not Path(log).exists(), "the log outlived the session"
    assert_nothing_leaks([KEY], home=isolated_home)
    assert_nothing_leaks([KEY], home=tmpdir)


def test_a_key_split_across_two_reads_is_masked_in_the_log(tmp_path: Path) -> None:
    """The split made certain: the pipe is written and read in two pieces by hand."""
    from gemtui import redact
    from gemtui.tools.background import BackgroundLog
    from gemtui.tools.saved_output import OutputStore

    redact.register(KEY)
    spill = OutputStore(tmp_path / "outputs").create("background-split")
    rfd, wfd = os.pipe()
    log = BackgroundLog(spill, rfd)
    os.write(wfd, f"key={KEY[:14]}".encode())
    os.write(wfd, f"{KEY[14:]}\n".encode())
    os.close(wfd)
    assert log.wait(timeout=30)
    assert log.path.read_text() == f"key={MASK}\n"
    assert log.path.stat().st_mode & 0o777 == 0o600
    log.remove()
    assert not log.path.exists()


def test_a_crashed_sessions_logs_are_removed_by_the_next_background_command(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Logs left by a gemtui that is gone go; a running gemtui's log and saved outputs
    (not background logs) stay."""
    write_fast_config(isolated_home)
    gone = subprocess.Popen(["true"])
    gone.wait()  # reaped: its pid names no process
    old = isolated_home / "data" / "tool-outputs" / "crashed-session"
    old.mkdir(parents=True)
    stale = old / f"background-{gone.pid}-bg.txt"
    running = old / f"background-{os.getpid()}-bg.txt"
    saved = old / "call-1.txt"
    for path in (stale, running, saved):
        path.write_text("masked text\n")
    mock_llm_thread.enqueue(
        {"function_calls": [_call("bg", command="echo started", is_background=True)]},
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "start it", "-y"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert not stale.exists()
    assert running.exists()
    assert saved.exists()
