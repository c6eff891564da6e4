"""No known secret leaves gemtui: raw bytes of every file under GEMTUI_HOME and every stream.

Keys come from the environment, the keyring (a real backend: a JSON file for child
processes, the in-memory one in-process), a prompt, a file the model reads, a command the
model runs, and a server's error message. Each case goes through the real command or the
headless runner against the mock server, then every byte gemtui wrote is searched.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.headless import run_headless
from gemtui.testing import MockLLMServer, filler
from tests.conftest import MemoryKeyring
from tests.support.file_keyring import BACKEND, ENV

from .helpers import gemtui_env, popen_gemtui, run_gemtui, write_fast_config

MASK = "[redacted]"
FORMATS = ("text", "json", "stream-json")

ENV_KEY = "AIzaSyENV-gemini-0123456789abcdefghijk"
GOOGLE_KEY = "AIzaSyGOOGLE-0123456789abcdefghijklm"
OPENAI_KEY = "q7Z"  # a short key: masked too, as a token of its own
ANTHROPIC_KEY = "sk-ant-api03-Anthropic/0123456789+abc=="
GITHUB_TOKEN = "ghp_GitHubTokenFromTheEnvironment0123"
RING_KEY = "AIzaSyRING/keyring+value-0123456789ab"


def _forms(secret: str) -> list[bytes]:
    """The secret as bytes: raw, JSON-escaped (both ways) and URL-encoded."""
    forms = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        quote(secret, safe=""),
    }
    return [f.encode() for f in forms]


def _home_files(home: Path) -> list[Path]:
    """Every file gemtui wrote under ``home`` (the settings file is the person's own)."""
    mine = home / "config" / "config.toml"
    return [p for p in home.rglob("*") if p.is_file() and p != mine]


def assert_nothing_leaks(
    secrets: list[str], *, home: Path | None = None, streams: dict[str, str] | None = None
) -> None:
    """No form of any secret in any file under ``home`` or any of ``streams``."""
    found: list[str] = []
    long_ones = [s for s in secrets if len(s) >= 8]
    short_ones = [s for s in secrets if len(s) < 8]
    blobs = {str(p): p.read_bytes() for p in (_home_files(home) if home else [])}
    blobs |= {name: text.encode() for name, text in (streams or {}).items()}
    for where, data in blobs.items():
        for secret in long_ones:
            if any(form in data for form in _forms(secret)):
                found.append(f"{secret!r} in {where}")
        for secret in short_ones:  # a short key is masked where it stands as a token
            for form in _forms(secret):
                if re.search(rb"(?<![A-Za-z0-9])" + re.escape(form) + rb"(?![A-Za-z0-9])", data):
                    found.append(f"{secret!r} in {where}")
    assert not found, "secrets leaked:\n" + "\n".join(found)


def keyring_env(env: dict[str, str], ring: Path, secrets: dict[str, str]) -> dict[str, str]:
    """``env`` for a child gemtui whose keyring is the JSON file ``ring`` holding ``secrets``."""
    ring.write_text(json.dumps({f"gemtui/{k}": v for k, v in secrets.items()}), encoding="utf-8")
    repo = str(Path(__file__).resolve().parents[2])  # where tests.support lives
    return env | {
        "PYTHON_KEYRING_BACKEND": BACKEND,
        ENV: str(ring),
        "PYTHONPATH": os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])),
    }


def _stored_files(home: Path) -> list[str]:
    return sorted(p.name for p in _home_files(home))


# -- reproduced: a key read from the keyring was stored four times ----------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_key_read_from_the_keyring_is_masked_in_the_store_and_the_output(
    fmt: str,
    mock_llm_thread: MockLLMServer,
    memory_keyring: MemoryKeyring,
    isolated_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_fast_config(isolated_home)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm_thread.url)
    memory_keyring.set_password("gemtui", "gemini-api-key", RING_KEY)
    (workspace / "creds.txt").write_text(f"api_key = {RING_KEY}\n", encoding="utf-8")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "creds.txt"}}]},
        # one token in 9 chunks: the key is split between deltas
        {"text": f"Your-key-is:{RING_KEY}.", "chunks": 9},
    )
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(
        RunOptions(
            workspace,
            f"my key is {RING_KEY} please keep it",
            provider="gemini",
            output_format=fmt,
        ),
        out,
        err,
    )
    assert code == 0, err.getvalue()
    # the key really came from the keyring and really went to the server
    assert mock_llm_thread.requests[0].headers["x-goog-api-key"] == RING_KEY
    assert RING_KEY in json.dumps(mock_llm_thread.requests[1].json)  # the model got the file
    assert "sessions.db" in _stored_files(isolated_home)
    assert_nothing_leaks(
        [RING_KEY], home=isolated_home, streams={"stdout": out.getvalue(), "stderr": err.getvalue()}
    )
    assert MASK in out.getvalue()
    with sqlite3.connect(isolated_home / "data" / "sessions.db") as db:
        (title,) = db.execute("SELECT title FROM sessions").fetchone()
        texts = [t for (t,) in db.execute("SELECT text FROM messages")]
    assert title == f"my key is {MASK} please keep it"
    assert f"Your-key-is:{MASK}." in texts


# -- reproduced: a key typed in the first prompt became the session title ---------------


def test_a_key_typed_in_the_first_prompt_is_masked_in_the_title_and_sessions_list(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url, key=ENV_KEY)
    mock_llm_thread.enqueue({"text": "Noted."})
    # one long word: the 60-character title is cut inside it, after the key is masked
    prompt = f"key:{ENV_KEY}-and-then-more-text-past-the-sixty-character-cut please"
    proc = run_gemtui(["-p", prompt], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    listed = run_gemtui(["sessions", "list", "--json"], env=env, cwd=workspace)
    table = run_gemtui(["sessions", "list"], env=env, cwd=workspace)
    assert listed.returncode == table.returncode == 0
    (row,) = json.loads(listed.stdout)
    assert row["title"].startswith(f"key:{MASK}-and-then-more")
    assert row["title"].endswith("…")
    streams = {"list --json": listed.stdout, "list": table.stdout, "run": proc.stdout + proc.stderr}
    assert_nothing_leaks([ENV_KEY, ENV_KEY[:20]], home=isolated_home, streams=streams)


# -- reproduced: a 400 whose message echoed the key --------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_server_error_that_echoes_the_key_is_masked_on_stderr_and_in_json(
    fmt: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url, key=ENV_KEY)
    mock_llm_thread.enqueue(
        {"error": {"status": 400, "message": f'API key not valid: "{ENV_KEY}". Check it.'}}
    )
    proc = run_gemtui(["-p", "hi", "--output-format", fmt], env=env, cwd=workspace)
    assert proc.returncode == 1, proc.stderr
    assert "API key not valid" in proc.stderr
    assert MASK in proc.stderr
    if fmt == "json":
        error = json.loads(proc.stdout)["error"]["message"]
        assert "API key not valid" in error
        assert MASK in error
    if fmt == "stream-json":
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        errors = [x["message"] for x in lines if x["type"] == "error"]
        assert errors
        assert all(MASK in e for e in errors)
    assert_nothing_leaks(
        [ENV_KEY], home=isolated_home, streams={"stdout": proc.stdout, "stderr": proc.stderr}
    )


# -- a hostile model puts the key where only names go ------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_key_the_model_puts_in_call_names_ids_and_argument_names_is_masked(
    fmt: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Argument *names*, a call's name and its id are the model's text like any other:
    they went into sessions.db (tool_calls and messages) and stream-json's tool_use raw."""
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url, key=ENV_KEY)
    mock_llm_thread.enqueue(
        {
            "function_calls": [
                {"name": ENV_KEY, "args": {ENV_KEY: "v", "n": {ENV_KEY: 1}}, "id": ENV_KEY},
                {"name": "read_file", "args": {"file_path": "x", ENV_KEY: 2}, "id": "r-" + ENV_KEY},
            ]
        },
        {"text": "done"},
    )
    proc = run_gemtui(["-p", "go", "--output-format", fmt], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    with sqlite3.connect(isolated_home / "data" / "sessions.db") as db:
        assert db.execute("SELECT count(*) FROM tool_calls").fetchone()[0] == 2
    assert_nothing_leaks(
        [ENV_KEY], home=isolated_home, streams={"stdout": proc.stdout, "stderr": proc.stderr}
    )


# -- every source at once, every format, every file ---------------------------------------


def _leaky_script(key_in_prompt: str) -> list[dict[str, object]]:
    """Tool results, a streamed echo and thoughts that all carry secrets."""
    everything = " ".join((ENV_KEY, GOOGLE_KEY, OPENAI_KEY, ANTHROPIC_KEY, GITHUB_TOKEN, RING_KEY))
    return [
        {
            "thought": f"The user gave {key_in_prompt} as key.",
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "secrets.env"}, "id": "r1"},
                {"name": "run_shell_command", "args": {"command": "env | sort"}, "id": "s1"},
                {
                    "name": "read_file",
                    "args": {"file_path": f"missing-{key_in_prompt}.txt"},
                    "id": "r2",
                },
            ],
        },
        {"text": f"Keys:{everything.replace(' ', ',')}.", "chunks": 40},
    ]


def test_no_secret_from_any_source_reaches_any_file_or_stream(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    base = keyring_env(  # the keyring file lives outside GEMTUI_HOME
        gemtui_env(isolated_home, mock_llm_thread.url, key=None),
        tmp_path / "keyring.json",
        {"gemini-api-key": RING_KEY},
    )
    with_env_keys = base | {
        "GEMINI_API_KEY": ENV_KEY,
        "GOOGLE_API_KEY": GOOGLE_KEY,
        "OPENAI_API_KEY": OPENAI_KEY,
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "GITHUB_TOKEN": GITHUB_TOKEN,
    }
    keyring_only = base | {"OPENAI_API_KEY": OPENAI_KEY, "ANTHROPIC_API_KEY": ANTHROPIC_KEY}
    (workspace / "secrets.env").write_text(
        "\n".join(
            f"{k}={v}"
            for k, v in {
                "GEMINI": ENV_KEY,
                "OPENAI": OPENAI_KEY,
                "ANTHROPIC": ANTHROPIC_KEY,
                "RING": RING_KEY,
                "GITHUB": GITHUB_TOKEN,
            }.items()
        )
        + "\n",
        encoding="utf-8",
    )
    streams: dict[str, str] = {}
    for fmt in FORMATS:
        # keys in the environment: in the prompt, a file, a command's output, the answer
        mock_llm_thread.enqueue(*_leaky_script(ENV_KEY))
        prompt = f"use {ENV_KEY} and {OPENAI_KEY} and {GITHUB_TOKEN}"
        proc = run_gemtui(
            ["-p", prompt, "--yolo", "--output-format", fmt], env=with_env_keys, cwd=workspace
        )
        assert proc.returncode == 0, proc.stderr
        streams[f"env {fmt} stdout"], streams[f"env {fmt} stderr"] = proc.stdout, proc.stderr
        # the key from the keyring: in the prompt, then a 400 that echoes it
        mock_llm_thread.enqueue(
            {"error": {"status": 400, "message": f"key {RING_KEY} / {OPENAI_KEY} is invalid"}}
        )
        proc = run_gemtui(
            ["-p", f"my key is {RING_KEY}", "--provider", "gemini", "--output-format", fmt],
            env=keyring_only,
            cwd=workspace,
        )
        assert proc.returncode == 1, proc.stderr
        assert mock_llm_thread.requests[-1].headers["x-goog-api-key"] == RING_KEY
        streams[f"ring {fmt} stdout"], streams[f"ring {fmt} stderr"] = proc.stdout, proc.stderr
    # killed mid-answer: the prompt is committed, the WAL and its index stay behind
    mock_llm_thread.enqueue({"text": filler(200, "slow"), "chunks": 100, "tokens_per_second": 40})
    killed = popen_gemtui(
        ["-p", f"key {RING_KEY} then {ENV_KEY}"], env=with_env_keys, cwd=workspace
    )
    assert killed.stdout is not None
    assert killed.stdout.read(1)
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait(timeout=10)
    assert {"sessions.db-wal", "sessions.db-shm"} <= set(_stored_files(isolated_home))
    secrets = [ENV_KEY, GOOGLE_KEY, OPENAI_KEY, ANTHROPIC_KEY, GITHUB_TOKEN, RING_KEY]
    assert_nothing_leaks(secrets, home=isolated_home)  # the WAL is checkpointed away later
    for args in (["sessions", "list", "--json"], ["sessions", "list"]):
        proc = run_gemtui(args, env=with_env_keys, cwd=workspace)
        streams[" ".join(args)] = proc.stdout + proc.stderr

    assert_nothing_leaks(secrets, home=isolated_home, streams=streams)
    # the runs did carry the secrets (nothing vacuous): each went out masked
    assert MASK in streams["env text stdout"]
    assert MASK in streams["ring json stdout"]
    assert streams["sessions list --json"].count(MASK) >= 4


# -- the log file: a tool bug whose message and traceback quote the key -------------------


def test_a_logged_traceback_that_quotes_the_key_is_masked(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gemtui.tools.builtin.read_file import ReadFileInvocation

    async def buggy(self: object, ctx: object) -> object:
        raise RuntimeError(f"could not use key {ENV_KEY!r} with header x-goog-api-key")

    monkeypatch.setattr(ReadFileInvocation, "execute", buggy)
    write_fast_config(isolated_home)
    monkeypatch.setenv("GEMINI_API_KEY", ENV_KEY)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm_thread.url)
    (workspace / "a.txt").write_text("a\n")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}]},
        {"text": "ok"},
    )
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(RunOptions(workspace, "read a.txt", output_format="stream-json"), out, err)
    assert code == 0, err.getvalue()
    log = (isolated_home / "logs" / "gemtui.log").read_text()
    assert "Traceback" in log
    assert "could not use key '[redacted]'" in log
    assert "could not use key" in out.getvalue()  # the tool error reached the output, masked
    assert_nothing_leaks(
        [ENV_KEY], home=isolated_home, streams={"stdout": out.getvalue(), "stderr": err.getvalue()}
    )


def test_credentials_written_in_settings_for_mcp_servers_are_masked(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pat, bearer = "ghp_configuredInSettings0123", "mcp-bearer-token-42"
    write_fast_config(
        isolated_home,
        f"""
[mcpServers.github]
command = "github-mcp-server"
env = {{ GITHUB_PERSONAL_ACCESS_TOKEN = "{pat}", DEBUG = "1" }}

[mcpServers.remote]
httpUrl = "http://127.0.0.1:9/mcp"
headers = {{ Authorization = "Bearer {bearer}" }}
""",
    )
    monkeypatch.setenv("GEMINI_API_KEY", ENV_KEY)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": f"pat={pat} bearer={bearer} debug=1"})
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(RunOptions(workspace, "show me"), out, err)
    assert code == 0, err.getvalue()
    assert out.getvalue() == f"pat={MASK} bearer={MASK} debug=1\n"
    streams = {"stdout": out.getvalue(), "stderr": err.getvalue()}
    assert_nothing_leaks([pat, bearer], home=isolated_home, streams=streams)


def test_sessions_list_masks_a_keyring_key_an_older_store_kept(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    from gemtui.store import SessionStore

    with SessionStore(isolated_home / "data" / "sessions.db") as store:
        store.create_session(title="placeholder", workspace=str(workspace))
    with sqlite3.connect(isolated_home / "data" / "sessions.db") as db:  # written unmasked
        db.execute("UPDATE sessions SET title = ?", (f"old title {RING_KEY}",))
    env = keyring_env(
        gemtui_env(isolated_home, key=None), tmp_path / "keyring.json", {"gemini-api-key": RING_KEY}
    )
    listed = run_gemtui(["sessions", "list", "--json"], env=env, cwd=workspace)
    table = run_gemtui(["sessions", "list"], env=env, cwd=workspace)
    assert listed.returncode == table.returncode == 0, listed.stderr + table.stderr
    assert json.loads(listed.stdout)[0]["title"] == f"old title {MASK}"
    streams = {"json": listed.stdout + listed.stderr, "table": table.stdout + table.stderr}
    assert_nothing_leaks([RING_KEY], streams=streams)


# -- reproduced: a one-letter placeholder key masked `drwxr-xr-x` ------------------------


def test_a_one_letter_key_is_left_inside_words_and_masked_where_it_stands_alone(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """``OPENAI_API_KEY=x`` (a local server's placeholder): real ``ls -l`` output keeps
    its permissions; the key alone, in JSON, in a URL and after ``=`` is still masked."""
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url) | {"OPENAI_API_KEY": "x"}
    (workspace / "sub").mkdir()
    (workspace / "sub").chmod(0o755)
    answer = 'The key: x. As JSON {"key": "x"}, in a URL ?k=x&y=1, and OPENAI_API_KEY=x'
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": "ls -ld sub"}}]},
        {"text": answer, "chunks": 7},
    )
    proc = run_gemtui(
        ["-p", "list", "--yolo", "--output-format", "stream-json"], env=env, cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(mock_llm_thread.requests[1].json)
    assert "drwxr-xr-x" in sent  # the command really ran: its output went to the model
    assert "drwxr-xr-x" in proc.stdout
    assert "drwxr-xr-" + MASK not in proc.stdout
    said = "".join(
        e.get("content", "")
        for e in map(json.loads, proc.stdout.splitlines())
        if e.get("type") == "message" and e.get("role") == "assistant"
    )
    assert said == (
        f'The key: {MASK}. As JSON {{"key": "{MASK}"}}, in a URL ?k={MASK}&y=1,'
        f" and OPENAI_API_KEY={MASK}"
    )
    with sqlite3.connect(isolated_home / "data" / "sessions.db") as db:
        texts = [t for (t,) in db.execute("SELECT text FROM messages")]
    assert said in texts
