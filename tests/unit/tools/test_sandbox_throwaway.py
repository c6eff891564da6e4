"""Which sandboxed commands are told that /tmp, /run and the home folder are throwaway:
those that name such a place outside every workspace root, and no others."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.tools.sandbox import SandboxConfig
from gemtui.tools.sandbox_throwaway import THROWAWAY_NOTE, throwaway_note

BOX = SandboxConfig(workspace=Path("/srv/proj"), writable=(Path("/tmp/extra"),))


@pytest.fixture(autouse=True)
def home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ann")


@pytest.mark.parametrize(
    "command",
    [
        "echo x > /tmp/y",
        "ls /tmp",
        "echo /var/tmp/x",
        "touch /run/x",
        "cp a ~/.bashrc",
        "echo $HOME/.cache",
        "echo ${HOME}/x",
        "ls /home/ann/.cache",
        "cat ~bob/x",
        "f=$(mktemp)",
        "pip install --user x",
        "git config --global a b",
    ],
)
def test_a_throwaway_place_gets_the_note(command: str) -> None:
    assert throwaway_note(command, BOX) == THROWAWAY_NOTE


@pytest.mark.parametrize(
    "command",
    [
        "ls",
        "npm test",
        "echo > /tmp/extra/f",  # an --include-directories root under /tmp is kept
        "ls /srv/proj/a",
        "ls ./tmp/x",
        "ls /runner",
        "echo a~b",
    ],
)
def test_a_kept_place_gets_none(command: str) -> None:
    assert throwaway_note(command, BOX) is None


def test_a_workspace_in_the_home_folder_is_kept() -> None:
    box = SandboxConfig(workspace=Path("/home/ann/proj"))
    assert throwaway_note("ls ~/proj/x; cat $HOME/proj/y", box) is None
    assert throwaway_note("ls ~/other", box) == THROWAWAY_NOTE
