"""stdout belongs to the protocol: whatever else writes there lands on stderr."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import os, sys
from gemtui.acp.server import _claim_stdout
fd = _claim_stdout()
print("a stray print")
os.write(1, b"a stray write to descriptor 1\\n")
os.write(fd, b'{"jsonrpc": "2.0"}\\n')
"""


def test_stray_output_goes_to_stderr() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout == '{"jsonrpc": "2.0"}\n'
    assert "a stray print" in proc.stderr
    assert "a stray write to descriptor 1" in proc.stderr


def test_no_engine_module_imports_acp() -> None:
    """The engine builds and runs sessions without the ACP package loaded."""
    code = (
        "import sys, gemtui.agent.session, gemtui.headless.runner, gemtui.scheduler, "
        "gemtui.tools.registry, gemtui.store; "
        "print(sorted(m for m in sys.modules if m == 'acp' or m.startswith(('acp.', 'gemtui.acp'))))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"
