"""Under -s, a write to /tmp or the home folder succeeds and then is gone: the model is
told so in one line, only when the command names such a place. Live through `gemtui -p`
with real bwrap; the control runs the same command unsandboxed, where the file stays and
nothing is said."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.testing import MockLLMServer
from gemtui.tools.sandbox_throwaway import THROWAWAY_NOTE

from .helpers import write_fast_config
from .test_sandbox import _shell


@pytest.mark.parametrize("place", ["tmp", "home"])
def test_the_model_is_told_what_a_sandboxed_write_leaves(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    place: str,
) -> None:
    write_fast_config(isolated_home)
    person = tmp_path / "person"
    person.mkdir()
    folder = tmp_path / "scratch" if place == "tmp" else person / ".cache"
    written = f"{folder if place == 'tmp' else '~/.cache'}/f"
    cmd = f"mkdir -p {written.rsplit('/', 1)[0]} && echo wrote-it > {written} && cat {written}"
    boxed = _shell(mock_llm_thread, isolated_home, workspace, cmd, "-s", HOME=str(person))
    assert "wrote-it" in boxed  # the write succeeded inside the sandbox
    assert not (folder / "f").exists()  # and is gone after it
    assert boxed.count(THROWAWAY_NOTE) == 1, boxed
    control = _shell(mock_llm_thread, isolated_home, workspace, cmd, HOME=str(person))
    assert (folder / "f").read_text() == "wrote-it\n"
    assert THROWAWAY_NOTE not in control


def test_a_command_naming_no_throwaway_place_gets_no_note(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    boxed = _shell(mock_llm_thread, isolated_home, workspace, "echo kept > here.txt", "-s")
    assert (workspace / "here.txt").read_text() == "kept\n"
    assert "[sandbox]" not in boxed
