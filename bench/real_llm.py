"""`make test-real-llm`: gemtui against a real small model behind a real llama-server.

Starts llama.cpp's ``llama-server --jinja`` with Qwen2.5-Coder-0.5B-Instruct (built by
``../shared/real-llm/setup.sh`` into ``$LLM_DIR``, default ``~/.cache/gemtui-real-llm``)
on a free 127.0.0.1 port, runs the real ``gemtui -p`` against it, headless, and stops it:

- plain: a question needing no tool gets an answer;
- read-native / read-text: a ``read_file`` call whose result reaches the model (the
  call succeeds and the model is asked again with it), with tools sent natively and with
  ``--text-tools``;
- read-replace: read a file, then ``replace`` a line in it, with ``-y``: the file changes;
- config-fact, change-constant, find-definition: tasks only the files can answer (a port
  in a config file, a constant to change, the file defining a function), judged on the
  outcome (the answer names it, the file changed) in the default mode.

Each check prints pass or fail, its wall time and what the model answered; the exit code
is 0 when every check passed. ``--runs N`` repeats the checks against the same server.
The model is tiny (0.5B parameters, sampling at the server's default temperature), so a
failure is a fact about the model as much as about gemtui: the lines say which it was.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LLM_DIR = Path(os.environ.get("LLM_DIR", Path.home() / ".cache" / "gemtui-real-llm"))
SERVER = LLM_DIR / "lsbuild" / "bin" / "llama-server"
MODEL = Path(os.environ.get("LLM_MODEL", LLM_DIR / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"))
"""``LLM_MODEL``: another GGUF to measure beside the 0.5B (the same checks, same server)."""
SERVER_ARGS = ["--alias", "qwen", "-c", "8192", "-t", "2", "--jinja", "--no-repack", "-n", "1024"]
"""``--no-repack``: ggml's AMX repacked matmul crashes (SIGSEGV at the first decode) on
CPUs that report AMX inside VMs that do not grant it; repacking only speeds things up.
``-n 1024``: a 0.5B model may repeat itself until the window is full (5 minutes here)."""
CHECK_TIMEOUT = 420.0
CONSTRAINED = "auto"
"""``[providers.openai] constrained_tools`` for every run (``--constrained``)."""

NOTES = "Pelicans nest on islands.\nThey eat fish.\n"
GREETING = "Hello World\nSecond line stays.\n"


@dataclass
class Outcome:
    name: str
    passed: bool
    seconds: float
    why: str
    events: list[dict[str, Any]] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
            return bool(json.load(response).get("status") == "ok")
    except (OSError, ValueError):
        return False


def start_server(log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [str(SERVER), "-m", str(MODEL), "--host", "127.0.0.1", "--port", str(port)]
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("wb") as out:
        proc = subprocess.Popen([*cmd, *SERVER_ARGS], stdout=out, stderr=out, env=env)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"llama-server exited with {proc.returncode}; see {log}")
        if _healthy(url):
            return proc, url
        time.sleep(0.5)
    proc.terminate()
    raise SystemExit(f"llama-server was not ready after 180 s; see {log}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_gemtui(url: str, prompt: str, workspace: Path, *flags: str) -> list[dict[str, Any]]:
    home = workspace.parent / "home"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GEMINI", "GOOGLE", "OPENAI", "ANTHROPIC"))
    }
    env |= {"GEMTUI_HOME": str(home), "OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "local"}
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[providers.openai]\nkind = "openai"\nconstrained_tools = "{CONSTRAINED}"\n')
    cmd = [sys.executable, "-m", "gemtui", "-p", prompt, "--provider", "openai", "-m", "qwen"]
    cmd += ["--output-format", "stream-json", "--trust-workspace", "--max-turns", "8", *flags]
    proc = subprocess.run(
        cmd,
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=CHECK_TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    events = []
    for line in proc.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            events.append({"type": "stdout", "text": line})
    events.append({"type": "exit", "code": proc.returncode, "stderr": proc.stderr[-2000:]})
    return events


def _answer(events: list[dict[str, Any]]) -> str:
    return next((str(e.get("response") or "") for e in events if e["type"] == "result"), "")


def _results(
    events: list[dict[str, Any]], name: str
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(tool_use, tool_result) pairs of calls to ``name``."""
    uses = {e["id"]: e for e in events if e["type"] == "tool_use" and e.get("name") == name}
    return [(uses[e["id"]], e) for e in events if e["type"] == "tool_result" and e["id"] in uses]


def _asked_again_after(events: list[dict[str, Any]], result: dict[str, Any]) -> bool:
    """Whether the model produced anything after the tool result (so it was sent back)."""
    after = events[events.index(result) + 1 :]
    turns = next((e.get("stats", {}).get("turns", 0) for e in events if e["type"] == "result"), 0)
    return turns >= 2 or any(e["type"] in ("message", "tool_use") for e in after)


def check_plain(url: str, ws: Path) -> tuple[bool, str, list[dict[str, Any]]]:
    events = run_gemtui(url, "What is 2 + 2? Answer in one short sentence.", ws)
    answer = _answer(events)
    ok = events[-1]["code"] == 0 and bool(answer.strip())
    return ok, f"answer {answer.strip()[:80]!r}", events


def _check_read(url: str, ws: Path, *flags: str) -> tuple[bool, str, list[dict[str, Any]]]:
    (ws / "notes.txt").write_text(NOTES)
    prompt = "What is the first word in the file notes.txt? Use the read_file tool."
    events = run_gemtui(url, prompt, ws, "--yolo", *flags)
    good = [
        (use, res)
        for use, res in _results(events, "read_file")
        if res.get("status") == "success" and "Pelicans" in str(res.get("output"))
    ]
    answer = _answer(events)
    if not good:
        calls = [e.get("args") for e in events if e["type"] == "tool_use"]
        return (
            False,
            f"no successful read of notes.txt; calls {calls}; answer {answer[:80]!r}",
            events,
        )
    if not _asked_again_after(events, good[0][1]):
        return False, "the result never went back to the model", events
    word = "answer names Pelicans" if "pelican" in answer.lower() else "answer misses the word"
    return True, f"read ok, result sent back; {word}: {answer.strip()[:60]!r}", events


def check_read_native(url: str, ws: Path) -> tuple[bool, str, list[dict[str, Any]]]:
    return _check_read(url, ws)


def check_read_text(url: str, ws: Path) -> tuple[bool, str, list[dict[str, Any]]]:
    return _check_read(url, ws, "--text-tools")


def check_read_replace(url: str, ws: Path) -> tuple[bool, str, list[dict[str, Any]]]:
    target = ws / "greeting.txt"
    target.write_text(GREETING)
    prompt = (
        "First read the file greeting.txt with the read_file tool. Then use the replace tool "
        "on greeting.txt to change the line 'Hello World' into 'Goodbye World'."
    )
    events = run_gemtui(url, prompt, ws, "-y")
    reads = [r for _, r in _results(events, "read_file") if r.get("status") == "success"]
    text = target.read_text()
    calls = [(e.get("name"), e.get("args")) for e in events if e["type"] == "tool_use"]
    if not reads:
        return False, f"no successful read; calls {calls}", events
    if "Goodbye World" not in text or "Second line stays." not in text:
        return False, f"file now {text!r}; calls {calls}", events
    return True, f"read, then replaced: file now {text!r}", events


def check_config_fact(url: str, ws: Path) -> tuple[bool, str, list[dict[str, Any]]]:
    """A fact only a config file holds: the answer must name it."""
    (ws / "server.toml").write_text('[server]\nhost = "0.0.0.0"\nport = 8421\nworkers = 3\n')
    (ws / "README.md").write_text("# Shop\nA small web shop. Settings live in server.toml.\n")
    events = run_gemtui(url, "Which port does this project's server listen on?", ws, "--yolo")
    answer = _answer(events)
    calls = [(e.get("name"), e.get("args")) for e in events if e["type"] == "tool_use"]
    ok = "8421" in answer
    return ok, f"answer {answer.strip()[:80]!r}; calls {calls}", events


def check_change_constant(url: str, ws: Path) -> tuple[bool, str, list[dict[str, Any]]]:
    """A constant to change in place: judged on the file afterwards."""
    target = ws / "limits.py"
    target.write_text('"""Limits."""\n\nMAX_RETRIES = 3\nTIMEOUT_SECONDS = 30\n')
    events = run_gemtui(url, "In limits.py, change MAX_RETRIES from 3 to 5.", ws, "-y")
    text = target.read_text()
    calls = [(e.get("name"), e.get("args")) for e in events if e["type"] == "tool_use"]
    ok = "MAX_RETRIES = 5" in text and "TIMEOUT_SECONDS = 30" in text
    return ok, f"file now {text[-45:]!r}; calls {calls}", events


def check_find_definition(url: str, ws: Path) -> tuple[bool, str, list[dict[str, Any]]]:
    """The file that defines a function, among several: the answer must name it."""
    (ws / "billing").mkdir()
    (ws / "billing" / "invoices.py").write_text(
        "def parse_invoice(text):\n    return text.split(',')\n"
    )
    (ws / "billing" / "tax.py").write_text("def vat(amount):\n    return amount * 0.2\n")
    (ws / "main.py").write_text("from billing.tax import vat\nprint(vat(10))\n")
    prompt = "Which file defines the function parse_invoice?"
    events = run_gemtui(url, prompt, ws, "--yolo")
    answer = _answer(events)
    calls = [(e.get("name"), e.get("args")) for e in events if e["type"] == "tool_use"]
    ok = "invoices.py" in answer
    return ok, f"answer {answer.strip()[:80]!r}; calls {calls}", events


CHECKS: dict[str, Callable[[str, Path], tuple[bool, str, list[dict[str, Any]]]]] = {
    "plain": check_plain,
    "read-native": check_read_native,
    "read-text": check_read_text,
    "read-replace": check_read_replace,
    "config-fact": check_config_fact,
    "change-constant": check_change_constant,
    "find-definition": check_find_definition,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="repeat the checks N times")
    parser.add_argument("--only", action="append", choices=list(CHECKS), help="run only these")
    parser.add_argument("--json", type=Path, help="write every outcome and its events here")
    parser.add_argument(
        "--constrained",
        choices=["auto", "on", "off"],
        default="auto",
        help="[providers.openai] constrained_tools for every run (default: auto)",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="use this running llama-server (e.g. to measure two builds side by side) "
        "instead of starting one",
    )
    args = parser.parse_args(argv)
    global CONSTRAINED
    CONSTRAINED = args.constrained
    if not args.server and (not SERVER.exists() or not MODEL.exists()):
        print(
            f"No llama-server or model in {LLM_DIR}: run ../shared/real-llm/setup.sh first "
            "(about 15 minutes, once), or set LLM_DIR.",
            file=sys.stderr,
        )
        return 2
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="gemtui-real-llm-"))
    outcomes: list[Outcome] = []
    proc, url = (None, args.server) if args.server else start_server(scratch / "server.log")
    print(f"llama-server ready at {url} in {time.monotonic() - started:.1f} s", flush=True)
    try:
        for run in range(1, args.runs + 1):
            for name in args.only or list(CHECKS):
                ws = scratch / f"{run}-{name}" / "workspace"
                ws.mkdir(parents=True)
                t0 = time.monotonic()
                try:
                    ok, why, events = CHECKS[name](url, ws)
                except subprocess.TimeoutExpired:
                    ok, why, events = False, f"timed out after {CHECK_TIMEOUT:.0f} s", []
                outcome = Outcome(name, ok, time.monotonic() - t0, why, events)
                outcomes.append(outcome)
                mark = "pass" if ok else "FAIL"
                print(f"[{run}] {mark} {name:15} {outcome.seconds:6.1f} s  {why}", flush=True)
    finally:
        if proc is not None:
            stop_server(proc)
    total = time.monotonic() - started
    print(f"\n{'check':15} passed  median s  (total wall time {total:.0f} s)")
    for name in args.only or list(CHECKS):
        mine = [o for o in outcomes if o.name == name]
        times = sorted(o.seconds for o in mine)
        median = times[len(times) // 2] if times else 0.0
        print(f"{name:15} {sum(o.passed for o in mine)}/{len(mine)}    {median:7.1f}")
    if args.json:
        args.json.write_text(json.dumps([o.__dict__ for o in outcomes], indent=1))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0 if outcomes and all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
