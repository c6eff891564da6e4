"""Nothing a sandboxed command plants runs later outside the sandbox, live.

Each form of the plant is one real shell command in a real `gemtui -p -y -s` run (real
bwrap), at the workspace and at an `--include-directories` root. Then what would run it
runs for real, unsandboxed: a plain `git status` (fsmonitor), `git commit` (a hook), or
gemtui itself in that folder, trusted (a hook in `.gemini/` or `.gemtui/settings.json`);
the payload writes a marker outside every root. `.agents/`, `.claude/` and `.vscode/`
run in other programs (skills, Claude Code's hooks, VS Code's tasks), so there the
planted file reaching the folder is what counts. Each form's control is the same run
without `-s`: the payload does fire, so the test proves the plant, not a typo.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer
from gemtui.tools.run_later import RUN_LATER_NAMES

from .helpers import gemtui_env, run_gemtui, shell_output, write_fast_config

FSMONITOR = "git config core.fsmonitor 'touch {marker}'"
HOOK = (
    "printf '#!/bin/sh\\ntouch {marker}\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit"
)


def _git(root: Path, *args: str) -> None:
    """Plain git as the person runs it, outside any sandbox (its result does not matter)."""
    subprocess.run(
        ["git", "-c", "user.name=p", "-c", "user.email=p@x", *args],
        cwd=root,
        capture_output=True,
        check=False,
    )


def _repo(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)


def _symlinked_repo(root: Path) -> None:
    _repo(root)
    (root / ".git").rename(root / ".real-git")
    (root / ".git").symlink_to(".real-git")


def _hooks_in_the_tree(made: bool) -> Callable[[Path], None]:
    """A repository whose ``core.hooksPath`` is a folder of the work tree (as husky sets)."""

    def make(root: Path) -> None:
        _repo(root)
        subprocess.run(["git", "config", "core.hooksPath", ".githooks"], cwd=root, check=True)
        if made:
            (root / ".githooks").mkdir()

    return make


def _separate_gitdir(root: Path) -> None:
    subprocess.run(["git", "init", "-q", "--separate-git-dir", str(root / ".store"), "."], cwd=root)


def _submodule(root: Path) -> None:
    """A repository with a populated submodule ``lib`` (its ``.git`` a ``gitdir:`` file)."""
    upstream = root.parent / f"{root.name}-upstream"
    upstream.mkdir()
    _repo(upstream)
    _git(upstream, "commit", "--allow-empty", "-qm", "first")
    _repo(root)
    _git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "lib")
    assert (root / "lib" / ".git").is_file()


def _gitdir_in_a_sub_folder(root: Path) -> None:
    """A ``.git`` file pointing into ``meta/gd``, a folder below the root."""
    (root / "meta").mkdir()
    subprocess.run(["git", "init", "-q", "--separate-git-dir", "meta/gd", "."], cwd=root)


def _hooks_settings(marker: Path) -> str:
    hook = {"type": "command", "command": f"touch {marker}"}
    return json.dumps({"hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [hook]}]}})


@dataclass(frozen=True)
class Plant:
    """One way to leave code behind, the folder it starts from, and what would run it."""

    prepare: Callable[[Path], None]
    command: str
    """Run in the root; ``{marker}`` is the payload's marker, ``{settings}`` hook JSON."""
    trigger: str
    """git-status, git-commit, gemtui, or file:PATH (the planted file reaching the host)."""


def _nothing(_root: Path) -> None:
    return None


def _folder(name: str) -> Callable[[Path], None]:
    def make(root: Path) -> None:
        (root / name).mkdir()
        (root / name / "keep.txt").write_text("the person's\n")

    return make


PLANTS: dict[str, Plant] = {
    "rename-.git-away-and-back": Plant(
        _repo,
        "mv .git .git2; cp -r .git2 .git; rm -rf .git2; " + FSMONITOR,
        "git-status",
    ),
    "git-config-fsmonitor": Plant(_repo, FSMONITOR, "git-status"),
    "new-hook": Plant(_repo, HOOK, "git-commit"),
    "hooks-path-folder-present": Plant(
        _hooks_in_the_tree(made=True), HOOK.replace(".git/hooks", ".githooks"), "git-commit"
    ),
    "hooks-path-folder-missing": Plant(
        _hooks_in_the_tree(made=False),
        "mkdir .githooks; " + HOOK.replace(".git/hooks", ".githooks"),
        "git-commit",
    ),
    "umount-the-read-only-.git": Plant(
        _repo, "umount -l .git 2>/dev/null; umount -l .git/config; " + FSMONITOR, "git-status"
    ),
    "new-repository-where-there-is-none": Plant(
        _nothing, "git init -q; " + FSMONITOR, "git-status"
    ),
    "a-.git-file-with-gitdir": Plant(
        _nothing,
        "git init -q --bare .store; git --git-dir=.store config core.bare false;"
        " git --git-dir=.store config core.worktree ..;"
        " git --git-dir=.store config core.fsmonitor 'touch {marker}';"
        " echo 'gitdir: .store' > .git",
        "git-status",
    ),
    "the-gitdir-a-.git-file-points-at": Plant(
        _separate_gitdir,
        "git --git-dir=.store config core.fsmonitor 'touch {marker}'",
        "git-status",
    ),
    "a-commondir-in-the-gitdir": Plant(
        _separate_gitdir,
        "git init -q --bare .evil; git --git-dir=.evil config core.bare false;"
        " git --git-dir=.evil config core.fsmonitor 'touch {marker}';"
        " echo ../.evil > .store/commondir",
        "git-status",
    ),
    "a-submodule's-.git": Plant(
        _submodule,
        "cd lib && rm .git && git init -q . && git config core.fsmonitor 'touch {marker}; false'",
        "git-status",
    ),
    "a-submodule-folder-renamed-away": Plant(
        _submodule,
        "mv lib lib2 && mkdir lib && cd lib && git init -q . &&"
        " git config core.fsmonitor 'touch {marker}; false'",
        "git-status",
    ),
    "the-gitdir's-folder-renamed-away": Plant(
        _gitdir_in_a_sub_folder,
        "mv meta meta2; mkdir meta; cp -r meta2/gd meta/gd;"
        " git --git-dir=meta/gd config core.fsmonitor 'touch {marker}'",
        "git-status",
    ),
    "replace-a-symlinked-.git": Plant(
        _symlinked_repo, "rm .git; git init -q; " + FSMONITOR, "git-status"
    ),
    "through-a-symlinked-.git": Plant(_symlinked_repo, FSMONITOR, "git-status"),
    "the-root-as-a-bare-repository": Plant(
        _nothing,
        'git init -q --bare .; git config core.bare false; git config core.worktree "$PWD";'
        " " + FSMONITOR,
        "git-status",
    ),
    ".gemini-missing": Plant(
        _nothing, "mkdir -p .gemini; echo '{settings}' > .gemini/settings.json", "gemtui"
    ),
    ".gemini-present": Plant(
        _folder(".gemini"), "echo '{settings}' > .gemini/settings.json", "gemtui"
    ),
    ".gemtui-missing": Plant(
        _nothing, "mkdir -p .gemtui; echo '{settings}' > .gemtui/settings.json", "gemtui"
    ),
    ".gemtui-present": Plant(
        _folder(".gemtui"), "echo '{settings}' > .gemtui/settings.json", "gemtui"
    ),
    **{
        f"{name}-{state}": Plant(
            _folder(name) if state == "present" else _nothing,
            f"mkdir -p {name}/sub; echo 'touch {{marker}}' > {name}/{planted}",
            f"file:{name}/{planted}",
        )
        for name, planted in (
            (".agents", "sub/SKILL.md"),
            (".claude", "settings.json"),
            (".vscode", "tasks.json"),
        )
        for state in ("missing", "present")
    },
}


def _fired(plant: Plant, root: Path, marker: Path, run_gemtui_in: Callable[[Path], None]) -> bool:
    """Whatever would run the plant runs now, unsandboxed; did the payload fire?"""
    if plant.trigger == "git-status":
        _git(root, "status")
    elif plant.trigger == "git-commit":
        _git(root, "commit", "--allow-empty", "-qm", "x")
    elif plant.trigger == "gemtui":
        run_gemtui_in(root)
    else:
        planted = root / plant.trigger.removeprefix("file:")
        return planted.exists() and str(marker) in planted.read_text()
    return marker.exists()


@pytest.mark.parametrize("where", ["workspace", "include-directories"])
@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
@pytest.mark.parametrize("form", list(PLANTS))
def test_nothing_planted_runs_later(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    form: str,
    sandboxed: bool,
    where: str,
) -> None:
    write_fast_config(isolated_home)
    plant = PLANTS[form]
    root = workspace if where == "workspace" else tmp_path / "second-root"
    root.mkdir(exist_ok=True)
    plant.prepare(root)
    marker = tmp_path / "payload-fired"
    before = _guarded(root)
    command = plant.command.format(marker=marker, settings=_hooks_settings(marker))
    flags = ["-s"] if sandboxed else []
    if root != workspace:
        command = f"cd {root} || exit 1; {command}"
        flags += ["--include-directories", str(root)]
    output = shell_output(mock_llm_thread, isolated_home, workspace, command, *flags)
    assert not marker.exists()  # nothing fired inside gemtui's own run
    if sandboxed:
        assert _guarded(root) == before, output  # unchanged, and no placeholder is left

    def run_gemtui_in(folder: Path) -> None:
        call = {"name": "read_file", "args": {"file_path": "x.txt"}}
        mock_llm_thread.enqueue({"function_calls": [call]}, {"text": "ok"})
        env = gemtui_env(isolated_home, mock_llm_thread.url)
        run_gemtui(["-p", "read", "--trust-workspace"], env=env, cwd=folder)

    fired = _fired(plant, root, marker, run_gemtui_in)
    assert fired is not sandboxed, output


def _guarded(root: Path) -> dict[str, str]:
    """What each guarded name at ``root`` is: missing, a folder, a file or a link."""
    state: dict[str, str] = {}
    for name in (*RUN_LATER_NAMES, "HEAD"):
        path = root / name
        if path.is_symlink():
            state[name] = f"link to {path.readlink()}"
        elif path.is_dir():
            state[name] = f"folder: {sorted(p.name for p in path.iterdir())}"
        else:
            state[name] = path.read_text() if path.exists() else "missing"
    return state


def test_no_placeholder_is_left_behind(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """A root without any guarded name looks the same to `ls` and `git status` after a
    sandboxed command (the placeholders it held are gone); in a repository, a commit is
    refused and the hint tells the model why."""
    write_fast_config(isolated_home)
    (workspace / "a.txt").write_text("a\n")
    second = tmp_path / "second-root"
    second.mkdir()
    _repo(second)
    before = (_listing(workspace), _listing(second))
    command = f"ls -A; git -C {second} commit --allow-empty -qm x"
    output = shell_output(
        mock_llm_thread,
        isolated_home,
        workspace,
        command,
        "-s",
        "--include-directories",
        str(second),
    )
    assert ".gemini" in output  # the placeholders were there while it ran
    assert "Read-only file system" in output
    assert "[sandbox]" in output
    assert "repository's metadata (.git" in output.split("[sandbox]")[1]
    assert (_listing(workspace), _listing(second)) == before


def _listing(root: Path) -> list[str]:
    """Every path under ``root`` with its kind, and git's view of the folder."""
    paths = sorted(
        f"{p.relative_to(root)}{'/' if p.is_dir() and not p.is_symlink() else ''}"
        for p in root.rglob("*")
    )
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=root, capture_output=True, text=True
    )
    return [*paths, status.stdout]


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
def test_a_background_command_keeps_its_placeholder_after_a_foreground_one_ends(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, sandboxed: bool
) -> None:
    """Two sandboxed commands share a placeholder: the foreground one ending (its own
    placeholders released) must not open `.gemini/` to the background one still running.
    FIFOs order the steps: the foreground command runs once the background one is inside
    its sandbox, which plants only after the foreground one ended; the last call waits
    until it has tried."""
    write_fast_config(isolated_home)
    for fifo in ("ready", "go", "tried"):
        os.mkfifo(workspace / fifo)
    plant = "mkdir -p .gemini; echo '{}' > .gemini/settings.json"

    def shell(command: str, **extra: bool) -> dict[str, Any]:
        call = {"name": "run_shell_command", "args": {"command": command, **extra}}
        return {"function_calls": [call]}

    mock_llm_thread.enqueue(
        shell(f"echo in > ready; read x < go; {plant}; echo done > tried", is_background=True),
        shell("cat ready"),  # runs and ends while the background command, set up, waits
        shell("echo go > go; cat tried"),
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "-y", *(["-s"] if sandboxed else [])],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert (workspace / ".gemini" / "settings.json").exists() is not sandboxed
    if sandboxed:
        assert not (workspace / ".gemini").exists()  # and gemtui's exit removed it


def test_a_placeholder_outlives_its_maker_while_another_command_binds_it(
    workspace: Path,
) -> None:
    """The command that made a placeholder ends while a later one, which bound the same
    folder, still runs: the folder must stay (removing it would lift the later command's
    mount and free the name). Through gemtui the route is a stdio MCP server started under
    -s (it holds its placeholders while it runs) stopped while a background command runs;
    here the two are `wrap_command` under real bwrap, ordered by FIFOs."""
    from gemtui.tools.sandbox import SandboxConfig, wrap_command

    config = SandboxConfig(workspace=workspace)
    for fifo in ("ready1", "go1", "ready2", "go2", "tried"):
        os.mkfifo(workspace / fifo)
    first = wrap_command(["bash", "-c", "echo > ready1; read x < go1"], config)
    maker = subprocess.Popen(first.argv, cwd=workspace)
    (workspace / "ready1").read_text()
    plant = "mkdir -p .gemini; echo '{}' > .gemini/settings.json"
    second = wrap_command(
        ["bash", "-c", f"echo > ready2; read x < go2; {plant}; echo > tried"], config
    )
    later = subprocess.Popen(second.argv, cwd=workspace)
    (workspace / "ready2").read_text()
    (workspace / "go1").write_text("go\n")
    assert maker.wait() == 0
    first.release()
    (workspace / "go2").write_text("go\n")
    (workspace / "tried").read_text()
    later.wait()
    second.release()
    assert not (workspace / ".gemini" / "settings.json").exists()
    assert not (workspace / ".gemini").exists()


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "control"])
def test_a_home_start_up_file_is_not_freed_by_renaming_its_folder(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    sandboxed: bool,
) -> None:
    """A home folder given with --include-directories holds ``~/.config/git/`` read-only;
    renaming ``~/.config`` (which would carry that mount away) must fail too, or a new
    ``~/.config/git/config`` sets ``core.fsmonitor`` for the next plain ``git status``."""
    write_fast_config(isolated_home)
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text("[user]\n\tname = p\n")
    _repo(workspace)
    marker = tmp_path / "payload-fired"
    command = (
        f"cd {home}; mv .config .config.old; mkdir -p .config/git;"
        f" printf '[core]\\n\\tfsmonitor = touch {marker}; false\\n' > .config/git/config"
    )
    flags = ["-s"] if sandboxed else []
    home_env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    output = shell_output(
        mock_llm_thread,
        isolated_home,
        workspace,
        command,
        *flags,
        "--include-directories",
        str(home),
        **home_env,
    )
    assert not marker.exists()
    subprocess.run(
        ["git", "status"], cwd=workspace, env={**os.environ, **home_env}, capture_output=True
    )
    assert marker.exists() is not sandboxed, output


def test_a_pinned_folder_does_not_unlock_a_home_below_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A home two levels into the root with a symlinked ``.bashrc`` (its top level
    locked): pinning ``users/`` must not cover that lock (a bind from the host would)."""
    from gemtui.tools.sandbox import SandboxConfig, wrap_command

    home = workspace / "users" / "h"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".bashrc").symlink_to("/etc/hostname")
    monkeypatch.setenv("HOME", str(home))
    command = wrap_command(
        ["bash", "-c", "touch users/h/new; mv users/h/.config users/h/c2; mv users u2"],
        SandboxConfig(workspace=workspace),
    )
    with command:
        subprocess.run(command.argv, cwd=workspace, capture_output=True, check=False)
    assert sorted(p.name for p in home.iterdir()) == [".bashrc", ".config"]
    assert (workspace / "users").is_dir()
