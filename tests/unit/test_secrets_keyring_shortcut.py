"""Where no OS keyring can exist (Linux, no D-Bus session bus, no keyring plugin or
settings), the keyring package is not imported at all: ~100 ms and ~15 MB per run.
(A Linux rule, tested on Linux, where gemtui's CI runs.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CODE = (
    "import sys\n"
    "from gemtui.config.secrets import get_secret, keyring_available\n"
    "print(keyring_available(), get_secret('gemini-api-key'), 'keyring' in sys.modules)"
)


def _run(tmp_path: Path, **extra: str) -> str:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHON_KEYRING_BACKEND", "DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME")
    }
    env |= {"XDG_RUNTIME_DIR": str(tmp_path / "run"), "HOME": str(tmp_path / "home"), **extra}
    out = subprocess.run(
        [sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_no_bus_no_plugin_no_settings_means_no_keyring_import(tmp_path: Path) -> None:
    assert _run(tmp_path) == "False None False"


def test_a_session_bus_means_the_keyring_is_asked(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "bus").touch()
    assert _run(tmp_path).endswith("True")  # keyring imported and asked


def test_an_explicit_backend_is_always_asked(tmp_path: Path) -> None:
    out = _run(
        tmp_path,
        PYTHON_KEYRING_BACKEND="tests.support.file_keyring.FileKeyring",
        GEMTUI_TEST_KEYRING=str(tmp_path / "ring.json"),
        PYTHONPATH=os.pathsep.join([str(Path.cwd()), *sys.path]),
    )
    assert out == "True None True"
