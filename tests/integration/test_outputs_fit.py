"""Outputs that fit: `gemtui -p` against the mock, a huge result from the shell, a real
stdio MCP server and a 20-URL web_fetch each reach the model as a bounded preview naming
a file, and the model's next call, read_file with that path and an offset, pages it.

The mock learns the file's path from the request it answers (``on_request``), as a model
would: the path is chosen by the run (its session id), not by the test.
"""

from __future__ import annotations

import json
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer
from gemtui.testing.mockllm import RecordedRequest
from tests.support.pages_server import Seen, serve_pages

from .helpers import gemtui_env, run_gemtui, write_fast_config

LIMIT = 30_000
"""The default ``[tools] output_limit``."""
BOUND = LIMIT + 1_000
"""What a preview may take: the limit, the cut marker and the notice naming the file."""
KEY = "test-key"
"""The API key ``gemtui_env`` sets: registered with the redactor, so it must come out masked."""
SAVED = re.compile(r"The whole output is saved in (\S+)\. ")
SERVER = Path(__file__).parent.parent / "support" / "big_mcp_server.py"


class PageThrough:
    """Plays the model: once a functionResponse names a saved output, asks read_file for
    ``limit`` characters of it at ``offset``, then ends the turn."""

    def __init__(self, mock: MockLLMServer, offset: int, limit: int = 1_000) -> None:
        self.mock, self.offset, self.limit = mock, offset, limit
        self.path: str | None = None
        mock.on_request = self

    def __call__(self, req: RecordedRequest) -> None:
        if self.path is not None or "enerateContent" not in req.path:
            return
        match = SAVED.search(_last_response_text(req.json))
        if match is None:
            return
        self.path = match.group(1)
        args = {"file_path": self.path, "offset": self.offset, "limit": self.limit}
        call = {"name": "read_file", "args": args, "id": "page1"}
        self.mock.enqueue({"function_calls": [call]}, {"text": "read it"})


def _last_response_text(body: Any) -> str:
    if not isinstance(body, dict) or not body.get("contents"):
        return ""
    parts = body["contents"][-1].get("parts", [])
    return "".join(json.dumps(p.get("functionResponse", {}).get("response", {})) for p in parts)


def _responses(mock: MockLLMServer) -> list[dict[str, Any]]:
    """Each generation request's last functionResponse (model order), as the model read it."""
    out = []
    for req in mock.requests:
        if "enerateContent" not in req.path:
            continue
        parts = req.json["contents"][-1]["parts"]
        found = [p["functionResponse"] for p in parts if "functionResponse" in p]
        if found:
            out.append(found[-1])
    return out


def _numbers(count: int) -> str:
    return "".join(f"{i:09d}\n" for i in range(count))


def _check_saved(path: Path, home: Path) -> str:
    assert path.parent.parent == home / "data" / "tool-outputs", path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    text = path.read_text(encoding="utf-8")
    assert KEY not in text, "the saved output is masked like the store"
    return text


def test_a_5_mb_shell_output_reaches_the_model_as_a_preview_and_read_file_pages_it(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    command = "seq -f '%09g' 0 499999; echo key=$GEMINI_API_KEY"
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]}
    )
    pager = PageThrough(mock_llm_thread, offset=2_500_000)
    proc = run_gemtui(
        ["-p", "print a lot", "--yolo"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "read it" in proc.stdout
    shell, page = _responses(mock_llm_thread)
    output = shell["response"]["output"]
    assert len(output) < BOUND, len(output)
    assert "Output: 000000000\n000000001\n" in output  # the head
    assert "000499999\nkey=[redacted]" in output  # the tail, masked
    assert KEY not in output
    assert pager.path is not None
    saved = _check_saved(Path(pager.path), isolated_home)
    assert saved == _numbers(500_000) + "key=[redacted]\n"
    paged = page["response"]["output"]
    assert paged.startswith(f"[Characters 2,500,000-2,501,000 of {len(saved):,} of {pager.path}.")
    assert "Next: offset=2501000" in paged
    assert paged.endswith("\n" + saved[2_500_000:2_501_000])
    assert saved[2_500_000:2_500_010] == "000250000\n"


def _mcp_config(tool_trusted: bool = True) -> str:
    return f"""
[mcpServers.big]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(SERVER))}]
trust = {"true" if tool_trusted else "false"}
"""


@pytest.mark.parametrize("tool", ["numbers", "numbers_resource"], ids=["text", "resource"])
def test_a_3_mb_mcp_result_reaches_the_model_as_a_preview_and_read_file_pages_it(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tool: str
) -> None:
    write_fast_config(isolated_home, _mcp_config())
    args = {"count": 300_000, "secret": KEY}
    mock_llm_thread.enqueue({"function_calls": [{"name": tool, "args": args, "id": "m1"}]})
    pager = PageThrough(mock_llm_thread, offset=1_234_560, limit=50)
    proc = run_gemtui(
        ["-p", "ask the server", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    mcp, page = _responses(mock_llm_thread)
    output = mcp["response"]["output"]
    assert len(output) < BOUND, len(output)
    assert output.startswith("000000000\n000000001\n")
    assert "000299999\nkey=[redacted]" in output
    assert KEY not in output
    assert pager.path is not None
    assert pager.path in output
    saved = _check_saved(Path(pager.path), isolated_home)
    assert saved == _numbers(300_000) + "key=[redacted]\n"
    paged = page["response"]["output"]
    assert paged.endswith("\n" + saved[1_234_560:1_234_610])
    assert saved[1_234_560:1_234_610] == "".join(f"{i:09d}\n" for i in range(123_456, 123_461))
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    shown = next(x for x in lines if x["type"] == "tool_result" and x["id"] == "m1")
    assert len(shown["output"]) < BOUND, "stream-json shows the preview, not 3 MB"
    assert pager.path in shown["output"]


@pytest.fixture
def pages() -> Iterator[tuple[str, Seen]]:
    with serve_pages() as served:
        yield served


def test_a_20_url_web_fetch_is_capped_in_total_and_read_file_pages_it(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    pages: tuple[str, Seen],
) -> None:
    base, seen = pages
    write_fast_config(
        isolated_home, "\n[tools.web_fetch]\nallow_private = true\nmax_total_bytes = 1000000\n"
    )
    urls = " ".join(f"{base}/n/{i}" for i in range(20))
    call = {"name": "web_fetch", "args": {"prompt": f"Summarise {urls}"}, "id": "w1"}
    mock_llm_thread.enqueue({"function_calls": [call]})
    pager = PageThrough(mock_llm_thread, offset=100_000, limit=2_000)
    proc = run_gemtui(
        ["-p", "read the docs", "--yolo"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(seen.requests) == 20
    fetched, page = _responses(mock_llm_thread)
    output = fetched["response"]["output"]
    assert len(output) < BOUND, len(output)
    assert output.startswith(f"The request: Summarise {base}/n/0")
    assert pager.path is not None
    saved = _check_saved(Path(pager.path), isolated_home)
    assert len(saved) < 1_000_000 + 20 * 300, "the pages together stay within the total"
    assert "this call's pages together reached 1,000,000 bytes" in saved
    paged = page["response"]["output"]
    assert paged.endswith("\n" + saved[100_000:102_000])
    assert len(paged) < 2_000 + 300


class SwapThenRead(PageThrough):
    """Plays a hostile model with a helper on the machine: the moment the preview names
    the saved file, that file becomes a link to a secret, then read_file is asked for it."""

    def __init__(self, mock: MockLLMServer, secret: Path, how: str) -> None:
        super().__init__(mock, offset=0)
        self.secret, self.how = secret, how

    def __call__(self, req: RecordedRequest) -> None:
        found = self.path is None
        super().__call__(req)
        if found and self.path is not None:
            saved = Path(self.path)
            saved.unlink()
            if self.how == "symlink":
                saved.symlink_to(self.secret)
            else:
                saved.hardlink_to(self.secret)


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_a_saved_output_swapped_for_a_link_to_a_secret_is_refused(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, how: str
) -> None:
    write_fast_config(isolated_home)
    secret = isolated_home.parent / "id_rsa"
    secret.write_text("PRIVATE KEY MATERIAL\n")
    command = "seq -f '%09g' 0 9999"
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]}
    )
    SwapThenRead(mock_llm_thread, secret, how)
    proc = run_gemtui(
        ["-p", "go", "--yolo"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    _, page = _responses(mock_llm_thread)
    assert "PRIVATE KEY" not in json.dumps(page)
    assert "outside the workspace" in page["response"]["error"]


def test_read_file_reaches_no_other_file_near_the_saved_outputs(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Only files this run wrote: not a `..` path out of the folder, not a link planted
    in it, not a file another run left there."""
    write_fast_config(isolated_home)
    folder = isolated_home / "data" / "tool-outputs"
    (folder / "old-session").mkdir(parents=True)
    (folder / "old-session" / "call.txt").write_text("LEFT BY ANOTHER RUN\n")
    secret = isolated_home.parent / "secret.txt"
    secret.write_text("TOP SECRET\n")
    (folder / "old-session" / "planted.txt").symlink_to(secret)
    (folder / "old-session" / "hard.txt").hardlink_to(secret)
    attempts = [
        str(folder / "old-session" / "call.txt"),
        str(folder / "old-session" / "planted.txt"),
        str(folder / "old-session" / "hard.txt"),
        str(folder / "old-session" / ".." / ".." / ".." / "config" / "config.toml"),
        f"{folder}/../../config/config.toml",
    ]
    calls = [
        {"name": "read_file", "args": {"file_path": p, "offset": 0}, "id": f"r{i}"}
        for i, p in enumerate(attempts)
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "go", "--yolo"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    last = mock_llm_thread.requests[-1].json["contents"][-1]["parts"]
    answers = [p["functionResponse"]["response"] for p in last]
    assert len(answers) == len(attempts)
    for answer in answers:
        assert "error" in answer, answer
        assert "outside the workspace" in answer["error"]
    text = json.dumps(answers)
    assert "TOP SECRET" not in text
    assert "LEFT BY ANOTHER RUN" not in text
    assert "max_attempts" not in text
