"""Session store benchmarks on a generated store of 10,000 sessions / 1,000,000 messages.

The store is generated once (executemany in one transaction) and cached under
``.bench/`` so reruns take seconds. Each figure is the median of 5 runs.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from gemtui.store import SessionStore, open_session_for_resume  # noqa: E402

SESSIONS = 10_000
MESSAGES = 1_000_000
BIG = 2_000
"""Messages in the session resumed by the benchmark."""
RUNS = 5
CACHE = ROOT / ".bench" / f"store-{SESSIONS}-{MESSAGES}.db"
BIG_ID = "bench-big-session"


def _words(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(20_000)]


def generate(path: Path = CACHE) -> Path:
    """Build the store once; later runs reuse the cached file."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    for extra in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
        extra.unlink(missing_ok=True)
    rng = random.Random(5)
    vocab = _words(rng)
    store = SessionStore(tmp, verify=False)
    conn = store._conn
    now = time.time()
    per = (MESSAGES - BIG) // (SESSIONS - 1)
    counts = [BIG] + [per] * (SESSIONS - 1)
    counts[-1] += MESSAGES - sum(counts)
    conn.execute("BEGIN")
    for i, n in enumerate(counts):
        sid = BIG_ID if i == 0 else f"bench-{i:05d}"
        updated = now - (SESSIONS - i) * 600.0 if i else now
        title = " ".join(rng.choice(vocab) for _ in range(4))
        conn.execute(
            "INSERT INTO sessions (id, title, workspace, provider, model, created, updated,"
            " message_count,"
            " turns, tokens_input, tokens_output, tokens_total) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                sid,
                title,
                f"/home/dev/project{i % 40}",
                "gemini",
                "gemini-2.5-pro",
                updated - 3600,
                updated,
                n,
                n // 2,
                900 * n,
                120 * n,
                1020 * n,
            ),
        )
        rows = []
        for j in range(n):
            role = "user" if j % 2 == 0 else "model"
            text = " ".join(rng.choice(vocab) for _ in range(rng.randint(6, 24)))
            body = json.dumps({"role": role, "parts": [{"text": text}]})
            rows.append((sid, j, 0, role, body, text, updated))
        conn.executemany(
            "INSERT INTO messages (session_id, idx, epoch, role, content, text, created)"
            " VALUES (?,?,?,?,?,?,?)",
            rows,
        )
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("ANALYZE")
    store.close()
    tmp.rename(path)
    return path


def _median(values: list[float]) -> float:
    return statistics.median(values)


async def _browser_open(path: Path) -> float:
    """Open the store and the browser screen until its first page of rows is in the table."""
    from textual.app import App
    from textual.widgets import DataTable

    from gemtui.tui.screens.sessions import SessionsScreen

    times: list[float] = []
    for _ in range(RUNS):
        app: App[None] = App()
        async with app.run_test(size=(140, 40)) as pilot:
            start = time.perf_counter()
            store = SessionStore(path)
            await app.push_screen(SessionsScreen(store, workspace=None))
            table = app.screen.query_one("#sessions-table", DataTable)
            while table.row_count == 0:
                await pilot.pause()
            times.append((time.perf_counter() - start) * 1000)
            store.close()
    return _median(times)


def _search(path: Path) -> float:
    store = SessionStore(path, verify=False)
    vocab = _words(random.Random(5))
    rng = random.Random(11)
    times = []
    for _ in range(RUNS):
        query = f"{rng.choice(vocab)} {rng.choice(vocab)[:3]}"
        start = time.perf_counter()
        store.search(query)
        times.append((time.perf_counter() - start) * 1000)
    common = []
    for _ in range(RUNS):
        start = time.perf_counter()
        store.search(vocab[0])  # a word found in ~1 in 1,000 messages
        common.append((time.perf_counter() - start) * 1000)
    store.close()
    return _median(times + common)


def _resume(path: Path) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        store = SessionStore(path, verify=False)
        _sid, history, _meta = open_session_for_resume(store, BIG_ID)
        times.append((time.perf_counter() - start) * 1000)
        assert len(history) == BIG
        store.close()
    return _median(times)


def _recorder_write(tmp: Path) -> float:
    from gemtui.wire import Content

    store = SessionStore(tmp / "w.db")
    sid = store.create_session(workspace="/w")
    times = []
    for i in range(200):
        content = Content.model(f"answer number {i} " * 40)
        start = time.perf_counter()
        store.add_message(sid, "model", content)
        times.append((time.perf_counter() - start) * 1000)
    store.close()
    return _median(times)


async def run_benchmarks() -> dict[str, float]:
    """The store's figures, names carrying their units (targets in the names' comments)."""
    import tempfile

    started = time.perf_counter()
    path = generate()
    gen = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        write = _recorder_write(Path(tmp))
    return {
        "store: generate or reuse 10k sessions / 1M messages (s)": gen,
        "store: browser open to first list (ms)": await _browser_open(path),  # target < 150
        "store: full-text search (ms)": _search(path),  # target < 100
        "store: resume 2,000-message session to history loaded (ms)": _resume(
            path
        ),  # target < 1000
        "store: recorder commit of one message (ms)": write,
    }


if __name__ == "__main__":
    for name, value in asyncio.run(run_benchmarks()).items():
        print(f"  {name:<62} {value:>10,.2f}")
