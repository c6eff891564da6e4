"""A root that contains the home folder (`--include-directories ~`) under `-s`, live:
none of its secrets is shown (each entry of the one list, gemtui's own files, a
symlinked `~/.ssh`), and none of its start-up files can be changed. Each has its
control: the same command without `-s` reads the secret or plants the payload."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gemtui.testing import MockLLMServer
from gemtui.tools.sandbox_places import HOME_RUN_LATER, HOME_SECRETS

from .helpers import shell_output, write_fast_config

TOKEN = "SECRET-MATERIAL-7f3a"


def _plant(home: Path, entry: str) -> Path:
    """The secret file for ``entry`` (a folder's ends in ``/``: a file inside it)."""
    path = home / entry.rstrip("/")
    if entry.endswith("/"):
        path = path / "secret"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{TOKEN}\n")
    return path


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
@pytest.mark.parametrize("entry", HOME_SECRETS)
def test_a_home_secret_is_hidden_when_a_root_contains_home(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    entry: str,
    sandboxed: bool,
) -> None:
    write_fast_config(isolated_home)
    home = tmp_path / "person"
    secret = _plant(home, entry)
    (home / "notes.txt").write_text("ordinary\n")
    flags = ["--include-directories", str(home), *(["-s"] if sandboxed else [])]
    command = f"cat {secret}; cat {home}/notes.txt"
    output = shell_output(
        mock_llm_thread, isolated_home, workspace, command, *flags, HOME=str(home)
    )
    assert "ordinary" in output  # the root itself is there
    assert (TOKEN in output) is not sandboxed, output


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
@pytest.mark.parametrize("target_in", ["home", "outside"])
def test_a_symlinked_ssh_is_followed(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    outside: Path,
    target_in: str,
    sandboxed: bool,
) -> None:
    """`~/.ssh` a link to a dotfiles folder (in the root) or to a folder the sandbox shows
    read-only: the keys stay hidden by either path."""
    write_fast_config(isolated_home)
    home = tmp_path / "person"
    home.mkdir()
    target = (home / "dotfiles" / "ssh") if target_in == "home" else outside / "ssh"
    target.mkdir(parents=True)
    (target / "id_ed25519").write_text(f"{TOKEN}\n")
    (home / ".ssh").symlink_to(target)
    flags = ["--include-directories", str(home), *(["-s"] if sandboxed else [])]
    command = f"cat ~/.ssh/id_ed25519 {home}/.ssh/id_ed25519 {target}/id_ed25519; echo end"
    output = shell_output(
        mock_llm_thread, isolated_home, workspace, command, *flags, HOME=str(home)
    )
    assert "end" in output
    assert (TOKEN in output) is not sandboxed, output


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
def test_gemtui_own_files_are_hidden_in_a_root_that_contains_them(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    sandboxed: bool,
) -> None:
    """`--include-directories` a folder holding `GEMTUI_HOME` (config, sessions.db): the
    session database and the config stay hidden, the root's other files are there."""
    write_fast_config(isolated_home)
    (tmp_path / "notes.txt").write_text("ordinary\n")
    db = isolated_home / "data" / "sessions.db"
    command = (
        f"head -c 15 {db}; echo; cat {isolated_home}/config/config.toml;"
        f" echo; cat {tmp_path}/notes.txt"
    )
    shell_output(mock_llm_thread, isolated_home, workspace, "true")  # makes the database
    flags = ["--include-directories", str(tmp_path), *(["-s"] if sandboxed else [])]
    output = shell_output(mock_llm_thread, isolated_home, workspace, command, *flags)
    assert "ordinary" in output
    assert ("SQLite format 3" in output) is not sandboxed, output
    assert ("max_attempts" in output) is not sandboxed, output


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
def test_the_account_home_is_hidden_when_home_points_elsewhere(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    sandboxed: bool,
) -> None:
    """`HOME` set to another folder: the account's own home (from the password database,
    with its real `~/.ssh`) is hidden too, not only `$HOME`."""
    import pwd

    write_fast_config(isolated_home)
    account_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert any(account_home.iterdir())
    home = tmp_path / "person"
    home.mkdir()
    command = f"ls -A {account_home} | wc -l | sed 's/^/entries=/'"
    flags = ["-s"] if sandboxed else []
    output = shell_output(
        mock_llm_thread, isolated_home, workspace, command, *flags, HOME=str(home)
    )
    assert ("entries=0" in output) is sandboxed, output


def _planted(path: Path, marker: Path) -> bool:
    """The payload reached the host, in the start-up file or inside the folder."""
    files = [path] if path.is_file() else list(path.rglob("*")) if path.is_dir() else []
    return any(f.is_file() and str(marker) in f.read_text() for f in files)


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
@pytest.mark.parametrize("state", ["present", "missing"])
@pytest.mark.parametrize("entry", HOME_RUN_LATER)
def test_a_home_start_up_file_stays_read_only_when_a_root_contains_home(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    entry: str,
    state: str,
    sandboxed: bool,
) -> None:
    """`--include-directories ~`: a shell's rc file, git's global config, an autostart
    entry or an editor's config would run the payload at the next shell, git command,
    login or editor, outside the sandbox."""
    write_fast_config(isolated_home)
    home = tmp_path / "person"
    home.mkdir()
    path = home / entry.rstrip("/")
    if state == "present":
        if entry.endswith("/"):
            path.mkdir(parents=True)
            (path / "keep").write_text("the person's\n")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("# the person's\n")
    marker = tmp_path / "payload-fired"
    target = path / "planted" if entry.endswith("/") else path
    command = f"mkdir -p {target.parent}; echo 'touch {marker}' >> {target}; echo end"
    flags = ["--include-directories", str(home), *(["-s"] if sandboxed else [])]
    output = shell_output(
        mock_llm_thread, isolated_home, workspace, command, *flags, HOME=str(home)
    )
    assert "end" in output
    assert _planted(path, marker) is not sandboxed, output
    if sandboxed:  # and no placeholder is left
        assert path.exists() is (state == "present")


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
def test_a_global_git_config_planted_in_home_does_not_run(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    sandboxed: bool,
) -> None:
    """`git config --global core.fsmonitor` with home a root: the person's next plain
    `git status`, in any repository, would run it."""
    write_fast_config(isolated_home)
    home = tmp_path / "person"
    home.mkdir()
    marker = tmp_path / "payload-fired"
    command = f"git config --global core.fsmonitor 'touch {marker}'"
    flags = ["--include-directories", str(home), *(["-s"] if sandboxed else [])]
    shell_output(mock_llm_thread, isolated_home, workspace, command, *flags, HOME=str(home))
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    subprocess.run(
        ["git", "status"], cwd=workspace, env={**os.environ, "HOME": str(home)}, check=False
    )
    assert marker.exists() is not sandboxed


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
def test_a_symlinked_dotfile_stays_read_only(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    sandboxed: bool,
) -> None:
    """`~/.bashrc` a link into a dotfiles folder: neither written through nor replaced
    (the link's folder is then read-only at its top level; its entries stay writable)."""
    write_fast_config(isolated_home)
    home = tmp_path / "person"
    (home / "dotfiles").mkdir(parents=True)
    (home / "dotfiles" / "bashrc").write_text("# the person's\n")
    (home / ".bashrc").symlink_to("dotfiles/bashrc")
    marker = tmp_path / "payload-fired"
    command = (
        f"echo 'touch {marker}' >> ~/.bashrc; rm ~/.bashrc; echo 'touch {marker}' > ~/.bashrc;"
        " echo kept > ~/dotfiles/notes; cat ~/dotfiles/notes"
    )
    flags = ["--include-directories", str(home), *(["-s"] if sandboxed else [])]
    output = shell_output(
        mock_llm_thread, isolated_home, workspace, command, *flags, HOME=str(home)
    )
    assert (home / "dotfiles" / "notes").read_text() == "kept\n"  # the rest stays writable
    planted = str(marker) in (home / ".bashrc").read_text()
    planted |= str(marker) in (home / "dotfiles" / "bashrc").read_text()
    assert planted is not sandboxed, output
    assert (home / ".bashrc").is_symlink() is sandboxed
