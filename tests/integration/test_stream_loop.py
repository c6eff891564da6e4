"""An answer that repeats itself while streaming is cut with a notice; a long answer
with naturally repeating parts (code, tables, lists) is not."""

from __future__ import annotations

import json
from pathlib import Path

from gemtui.store import SessionStore
from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

LOOP = "I should double-check the configuration file before going on. "
NOTICE = "The model kept repeating the same text, so its answer was cut"

LONG_ANSWER = (
    "Here is the plan, with the checks it needs.\n\n"
    "| step | command | expected |\n|------|---------|----------|\n"
    + "".join(f"| {i} | make test | all tests pass |\n" for i in range(40))
    + "\n```python\n"
    + "    assert result.ok\n    assert result.errors == []\n" * 60
    + "```\n\n"
    + "".join(f"- check the output of step {i} again\n" for i in range(40))
    + "\n"
    + "The loader reads settings once, at start-up, and caches them per workspace. "
    "Nothing else touches the cache, so moving it into its own module is safe. "
    "The parser keeps its public names; only the private helpers change places. "
    "Tests that import the helpers directly need their imports updated, which the "
    "table above lists step by step. After that, the old module becomes a thin shim "
    "that re-exports the new names for one release, with a deprecation warning. "
    "Finally, the changelog gets an entry, and the documentation page about settings "
    "links to the new module instead of the old one." + "\n\nThat is the whole answer."
)


def test_a_stream_repeating_itself_is_cut_with_a_notice(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    # a stream that would never end: only the loop check can stop it this early
    mock_llm_thread.enqueue({"text": "Let me see. " + LOOP * 3, "chunk_tokens": 3, "endless": True})
    proc = run_gemtui(
        ["-p", "fix it"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 1, proc.stderr
    assert f"gemtui: {NOTICE}" in proc.stderr
    assert "Traceback" not in proc.stderr
    printed = proc.stdout
    assert printed.startswith("Let me see. " + LOOP)
    assert len(printed) < 20 * len(LOOP), f"cut after {len(printed)} characters"
    with SessionStore() as store:  # what arrived is kept, as after a cancel
        [info] = store.list_sessions()
        history = store.load_history(info.id)
    assert history[-1].role == "model"
    kept = history[-1].parts[0].text or ""
    assert kept.startswith("Let me see. " + LOOP)
    assert kept == printed.rstrip("\n")  # kept as shown, not the whole batch read ahead


def test_stream_json_reports_the_cut_and_the_setting_turns_it_off(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": LOOP * 30, "chunk_tokens": 5})
    proc = run_gemtui(
        ["-p", "fix it", "--output-format", "json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert "repeating itself" in result["error"]["message"]
    assert len(result["response"]) < 15 * len(LOOP)

    write_fast_config(isolated_home, "\n[chat]\nloop_detection = false\n")
    mock_llm_thread.enqueue({"text": LOOP * 30, "chunk_tokens": 5})
    proc = run_gemtui(
        ["-p", "fix it"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (LOOP * 30).strip()


def test_a_long_answer_with_tables_code_and_lists_is_not_cut(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": LONG_ANSWER, "chunk_tokens": 3})
    proc = run_gemtui(
        ["-p", "plan it"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert NOTICE not in proc.stderr
    assert proc.stdout.rstrip("\n") == LONG_ANSWER
