"""Two gemtui processes writing sessions at the same time lose nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gemtui.store import SessionStore

WRITER = """
import sys
from gemtui.store import SessionStore
from gemtui.wire import Content
store = SessionStore()
tag = sys.argv[1]
for i in range(60):
    sid = store.create_session(f"{tag}-{i}", title=f"{tag} {i}", workspace="/ws")
    for j in range(5):
        store.add_message(sid, "user" if j % 2 == 0 else "model", Content.user(f"{tag} message {i} {j}"))
    store.add_usage(sid, input=3, output=2, total=5)
"""


def test_two_processes_writing_at_once_lose_nothing(isolated_home: Path) -> None:
    # no store yet: both processes create and migrate it at the same moment, too
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, tag], stderr=subprocess.PIPE, text=True)
        for tag in ("alpha", "beta")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    store = SessionStore()
    assert store.count_sessions() == 120
    sessions = store.list_sessions(limit=500)
    assert all(s.messages == 5 and s.tokens == 5 for s in sessions)
    assert store._conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 600
    assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
