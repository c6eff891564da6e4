"""Bad settings, broken stores and broken pipes end with the documented exit and one line.

Through the real `gemtui` command (a subprocess) where the process itself matters (pipes,
interpreter shutdown, warnings), and the in-process CLI entry point for the many settings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gemtui.cli import main as cli
from gemtui.testing import MockLLMServer, filler

from .helpers import gemtui_env, run_gemtui, write_fast_config

DEEP = "a = " + "[" * 5000 + "]" * 5000 + "\n"


def _no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("config.toml", b'[general]\nmodel = "\xff\xfe"\n', "not UTF-8"),
        ("config.toml", DEEP.encode(), "nests too deeply"),
        ("policy.toml", b'[[rule]]\ntoolName = "\xe9"\ndecision = "allow"\n', "not UTF-8"),
        ("policy.toml", DEEP.encode(), "nests too deeply"),
    ],
    ids=["config-not-utf8", "config-deep", "policy-not-utf8", "policy-deep"],
)
def test_unreadable_settings_file_exits_52_naming_it(
    isolated_home: Path, workspace: Path, name: str, content: bytes, says: str
) -> None:
    cfg = isolated_home / "config"
    cfg.mkdir()
    (cfg / name).write_bytes(content)
    proc = run_gemtui(["-p", "hi"], env=gemtui_env(isolated_home), cwd=workspace)
    assert proc.returncode == 52, proc.stderr
    assert str(cfg / name) in proc.stderr
    assert says in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    _no_traceback(proc.stderr)


def test_unreadable_workspace_policy_of_a_trusted_folder_exits_52(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / ".gemtui").mkdir()
    (workspace / ".gemtui" / "policy.toml").write_text(DEEP)
    proc = run_gemtui(
        ["-p", "hi", "--trust-workspace"], env=gemtui_env(isolated_home), cwd=workspace
    )
    assert proc.returncode == 52, proc.stderr
    assert str(workspace / ".gemtui" / "policy.toml") in proc.stderr
    _no_traceback(proc.stderr)


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[tools]\nshell_timeout = -5\n", "tools.shell_timeout"),
        ("[tools]\nshell_timeout = 0\n", "tools.shell_timeout"),
        ("[tools]\noutput_limit = 0\n", "tools.output_limit"),
        ("[network]\nmax_attempts = 0\n", "network.max_attempts"),
        ("[network]\nread_timeout = -1.5\n", "network.read_timeout"),
        ("[network]\ninitial_delay = -1\n", "network.initial_delay"),
        ("[network]\nmax_delay = -1\n", "network.max_delay"),
        ("[network]\nstream_retry_delays = [1.0, -2.0]\n", "network.stream_retry_delays.1"),
        ("[general]\nmax_turns = 0\n", "general.max_turns"),
        ("[general]\nmax_turns = -7\n", "general.max_turns"),
        ("[chat]\ncompression_threshold = 0\n", "chat.compression_threshold"),
        ("[chat]\ncompression_preserve = 1.5\n", "chat.compression_preserve"),
        (
            '[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
            "context_window = 0\n",
            "providers.local.context_window",
        ),
        (
            '[providers.local]\nkind = "openai"\nprices = { input = -1.0 }\n',
            "providers.local.prices.input",
        ),
        ('[mcpServers.x]\ncommand = "true"\ntimeout = 0\n', "mcpServers.x.timeout"),
    ],
    ids=lambda v: v if "." in v and "\n" not in v else None,
)
def test_zero_or_negative_limits_exit_52_naming_the_key(
    isolated_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    toml: str,
    key: str,
) -> None:
    cfg = isolated_home / "config" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text(toml)
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    monkeypatch.chdir(workspace)
    monkeypatch.setattr(cli, "_read_stdin", lambda **_: None)
    assert cli.main(["-p", "hi"]) == 52
    err = capsys.readouterr().err
    assert f"setting '{key}'" in err
    assert str(cfg) in err
    _no_traceback(err)


def test_env_override_with_zero_turns_exits_52(
    isolated_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    monkeypatch.setenv("GEMTUI_MAX_TURNS", "0")
    monkeypatch.chdir(workspace)
    monkeypatch.setattr(cli, "_read_stdin", lambda **_: None)
    assert cli.main(["-p", "hi"]) == 52
    assert "general.max_turns" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args", [["list"], ["list", "--json"], []], ids=["list", "json", "browser"]
)
@pytest.mark.parametrize("kind", ["home-is-a-file", "data-is-a-file"])
def test_sessions_list_on_an_unusable_store_prints_one_line(
    tmp_path: Path, workspace: Path, kind: str, args: list[str]
) -> None:
    home = tmp_path / "home"
    if kind == "home-is-a-file":
        home.write_text("not a folder")
        home = home / "inner"
    else:
        home.mkdir()
        (home / "data").write_text("not a folder")
    proc = run_gemtui(["sessions", *args], env=gemtui_env(home), cwd=workspace)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("gemtui: cannot read the saved sessions")
    assert proc.stdout == ""
    _no_traceback(proc.stderr)


def test_unwritable_home_headless_run_says_one_line_per_problem(
    mock_llm_thread: MockLLMServer, tmp_path: Path, workspace: Path
) -> None:
    home = tmp_path / "home"
    write_fast_config(home)
    (home / "data").write_text("not a folder")
    (home / "logs").write_text("not a folder")
    mock_llm_thread.enqueue({"text": "still answered"})
    proc = run_gemtui(["-p", "hi"], env=gemtui_env(home, mock_llm_thread.url), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "still answered"
    assert "not being saved" in proc.stderr
    assert "a file is in the way" in proc.stderr
    _no_traceback(proc.stderr)


def test_reader_closing_the_pipe_ends_the_run_quietly(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """`gemtui -p … | head -c 1`: more output than a pipe holds, so the write must fail."""
    write_fast_config(isolated_home)
    cfg = isolated_home / "config" / "config.toml"  # a loaded machine must not look stalled
    cfg.write_text(cfg.read_text().replace("read_timeout = 2.0", "read_timeout = 60.0"))
    mock_llm_thread.enqueue({"text": filler(60_000), "chunks": 300})
    errors = workspace.parent / "stderr.txt"
    with errors.open("wb") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gemtui", "-p", "hi"],
            env=gemtui_env(isolated_home, mock_llm_thread.url),
            cwd=workspace,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err_file,
        )
        assert proc.stdout is not None
        assert proc.stdout.read(1) == b"w"
        proc.stdout.close()
        code = proc.wait(timeout=60)
    stderr = errors.read_text()
    log = isolated_home / "logs" / "gemtui.log"
    logged = log.read_text() if log.exists() else ""
    assert (code, stderr.strip()) == (1, ""), logged
    _no_traceback(stderr, logged)


def test_glob_patterns_never_print_python_warnings(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    for name in ("a1.txt", "[1.txt", "&.txt", "b.txt"):
        (workspace / name).write_text("x")
    patterns = ["[[a]*", "[a&&b]*", "[b||c]*", "[~~b]*", "[z-a]*", "[]]*"]
    calls = [
        {"name": "glob", "args": {"pattern": p}, "id": f"g{i}"} for i, p in enumerate(patterns)
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "find", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr
    answered = {
        part["functionResponse"]["id"]: json.dumps(part["functionResponse"]["response"])
        for part in mock_llm_thread.requests[-1].json["contents"][-1]["parts"]
    }
    assert len(answered) == len(patterns)
    assert "a1.txt" in answered["g0"]
    assert "[1.txt" in answered["g0"]
    assert "b.txt" not in answered["g0"]
    assert "&.txt" in answered["g1"]
    assert "b.txt" in answered["g1"]
    assert "b.txt" in answered["g2"]
    assert "b.txt" in answered["g3"]
    assert "a1.txt" not in answered["g4"]  # a reversed range matches nothing


def test_odd_ignore_file_patterns_neither_warn_nor_break_the_tools(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A repository's .gitignore with lines pathspec cannot compile (`[z-a]`, a lone `\\`)
    made every tool fail; `[[s]*` made `re` print a FutureWarning. Git matches nothing for
    the broken lines and `[` or `s` then anything for the odd one, and so do we."""
    write_fast_config(isolated_home)
    (workspace / ".gitignore").write_text("[z-a]\n\\\n[[s]*\n")
    for name in ("keep.txt", "secret.txt", "[x.txt"):
        (workspace / name).write_text("x")
    mock_llm_thread.enqueue(
        {
            "function_calls": [
                {"name": "glob", "args": {"pattern": "*.txt"}, "id": "g"},
                {"name": "read_file", "args": {"file_path": "keep.txt"}, "id": "r"},
            ]
        },
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "find"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr
    answered = {
        part["functionResponse"]["id"]: part["functionResponse"]["response"]
        for part in mock_llm_thread.requests[-1].json["contents"][-1]["parts"]
    }
    assert "error" not in answered["g"]
    assert "error" not in answered["r"]
    listing = answered["g"]["output"]
    assert "keep.txt" in listing
    assert "secret.txt" not in listing
    assert "[x.txt" not in listing


def test_odd_policy_regex_prints_no_python_warning(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (isolated_home / "config" / "policy.toml").write_text(
        '[[rule]]\ntoolName = "read_file"\nargsPattern = "[[a]"\ndecision = "allow"\n'
    )
    mock_llm_thread.enqueue({"text": "hi"})
    proc = run_gemtui(
        ["-p", "go"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr


def _run_in_pty(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run the real TUI on a pseudo-terminal until it exits; its code and all it wrote."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: become gemtui
        os.chdir(cwd)
        os.execve(sys.executable, [sys.executable, "-m", "gemtui", *args], env)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def test_the_tui_with_an_invalid_value_exits_52_naming_it(
    isolated_home: Path, workspace: Path
) -> None:
    """Values are validated after the first frame now; a bad one still ends the TUI with
    exit 52 and the file, key and reason (not a traceback)."""
    write_fast_config(isolated_home, '\n[general]\nmax_turns = "lots"\n')
    code, out = _run_in_pty([], gemtui_env(isolated_home), workspace)
    assert code == 52, out[-2000:]
    assert "general.max_turns" in out
    assert "config.toml" in out
    assert "Traceback" not in out


def test_sessions_browser_with_broken_settings_says_so_once_after_the_store(
    tmp_path: Path, workspace: Path
) -> None:
    """The browser prices with the user's own ``[prices."MODEL"]``: a settings file it
    cannot read is said in one line with exit 52 (the store opened first, and fine)."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('[prices."m"]\ninput = "cheap"\n')
    proc = run_gemtui(["sessions"], env=gemtui_env(home), cwd=workspace)
    assert proc.returncode == 52
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "config.toml" in lines[0]
    _no_traceback(proc.stderr)
