"""No module under src/ grows past one screenful of responsibility (STYLE.md: 400 lines).

The limit lives here, once: a module that needs more lines is two modules. The modules
already past it are named below, each with the seam it should be split along (issue 34);
each may not grow past 600, and a module not named may not pass 400.
"""

from __future__ import annotations

from pathlib import Path

MAX_MODULE_LINES = 400
ALLOWED_MAX = 600

OVER_THE_LIMIT: dict[str, str] = {
    "gemtui/tui/widgets/transcript.py": "the block list apart from paging and scrolling",
    "gemtui/tools/shell_syntax.py": "the tree-sitter walk apart from the verdict types",
    "gemtui/testing/mockllm.py": "each wire format's framing apart from the server",
    "gemtui/agent/session.py": "a narrow Session surface apart from its wiring (issue 34)",
    "gemtui/tui/app.py": "a session controller the App owns (issue 34)",
    "gemtui/tui/session_host.py": "a session controller the App owns (issue 34)",
    "gemtui/agent/executor.py": "the turn loop apart from recovery and task mode",
    "gemtui/store/store.py": "the SQL per table (sessions, messages, calls, usage)",
    "gemtui/tui/widgets/approval_queue.py": "the previews apart from the keys",
    "gemtui/tui/widgets/transcript_blocks.py": "one module per kind of block",
    "gemtui/scheduler/orchestration.py": "batching apart from the approval flow",
    "gemtui/providers/tool_call_text.py": "the JSON scan apart from the prompt text",
    "gemtui/tools/workspace.py": "path resolution apart from the ignore files",
    "gemtui/tools/builtin/run_shell_command.py": "background runs apart from piped runs",
    "gemtui/bus/events.py": "the one contract file (DESIGN.md): kept whole on purpose",
    "gemtui/tools/builtin/replace.py": "the match and repair steps apart from the tool",
    "gemtui/tools/sandbox_places.py": "placeholders apart from the lists of places",
    "gemtui/tui/screens/sessions.py": "the preview pane apart from the list",
    "gemtui/config/settings.py": "one model per settings table",
    "gemtui/providers/convert_openai.py": "requests apart from streamed answers",
    "gemtui/config/trust.py": "the trust file apart from the folder questions",
}
"""Modules past 400 lines, each with the seam to split it along."""

SRC = Path(__file__).resolve().parents[2] / "src"


def _sizes() -> dict[str, int]:
    return {
        path.relative_to(SRC).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in SRC.rglob("*.py")
    }


def test_no_module_is_over_the_limit() -> None:
    sizes = _sizes()
    assert len(sizes) > 100  # the tree was found
    over = {
        name: n
        for name, n in sizes.items()
        if n > (ALLOWED_MAX if name in OVER_THE_LIMIT else MAX_MODULE_LINES)
    }
    assert over == {}, f"split these modules (limit {MAX_MODULE_LINES} lines): {over}"


def test_the_allow_list_names_only_modules_still_over_the_limit() -> None:
    """A module split below 400 leaves the list, so the list only ever shrinks."""
    sizes = _sizes()
    stale = [n for n in OVER_THE_LIMIT if sizes.get(n, 0) <= MAX_MODULE_LINES]
    assert stale == [], f"no longer over {MAX_MODULE_LINES} lines: drop from the list {stale}"
