"""What counts as an edit's own diagnostic, how it is written for the model, and which
server serves a file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsprotocol import types as lsp

from gemtui.config.settings import LspServerSettings
from gemtui.tools.lsp.diagnostics import describe, introduced
from gemtui.tools.lsp.servers import server_specs, spec_for


def _d(line: int, message: str, severity: lsp.DiagnosticSeverity) -> lsp.Diagnostic:
    at = lsp.Position(line, 4)
    return lsp.Diagnostic(lsp.Range(at, at), message, severity=severity, source="pyflakes")


E, W, H = lsp.DiagnosticSeverity.Error, lsp.DiagnosticSeverity.Warning, lsp.DiagnosticSeverity.Hint


def test_a_warning_moved_by_the_edit_is_not_the_edits() -> None:
    before = [_d(0, "'os' imported but unused", W)]
    after = [_d(3, "'os' imported but unused", W), _d(7, "undefined name 'x'", E)]
    assert [d.message for d in introduced(before, after)] == ["undefined name 'x'"]


def test_a_second_copy_of_an_old_message_is_new_and_hints_never_count() -> None:
    before = [_d(1, "undefined name 'x'", E)]
    after = [_d(1, "undefined name 'x'", E), _d(9, "undefined name 'x'", E), _d(2, "style", H)]
    assert [d.range.start.line for d in introduced(before, after)] == [9]


def test_the_note_is_one_line_each_and_bounded() -> None:
    new = [_d(n, f"undefined name 'v{n}'", E) for n in range(4)]
    text = describe("pylsp", "a.py", new, 2)
    assert text.splitlines() == [
        "Diagnostics (pylsp): this edit introduced 4 errors:",
        "a.py:1:5 error undefined name 'v0' (pyflakes)",
        "a.py:2:5 error undefined name 'v1' (pyflakes)",
        "... and 2 more",
    ]


def test_configured_servers_come_first_by_ending_or_language() -> None:
    conf = {
        "mine": LspServerSettings(command=["my-ls"], extensions=["pyx"], languages=["go"]),
    }
    specs = server_specs(conf, find_on_path=False)
    assert spec_for(specs, Path("m.pyx")) is specs[0]
    assert spec_for(specs, Path("main.go")) is specs[0]
    assert spec_for(specs, Path("a.py")) is None


def test_a_session_start_loads_no_language_server_library() -> None:
    """pygls and lsprotocol (over half a second to import) load with the first server."""
    code = (
        "import sys, gemtui.agent.session, gemtui.agent.session_lsp, gemtui.tools.lsp.tools\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pygls', 'lsprotocol'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
