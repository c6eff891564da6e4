"""Every way text enters the store or leaves it as an export masks a key from the keyring."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from gemtui.config.secrets import get_secret, set_secret
from gemtui.store import SessionStore, improve_title
from gemtui.wire import Content, FunctionCall, FunctionResponse, Part
from tests.conftest import MemoryKeyring

KEY = "sk-ant-api03-store/0123456789+abcdef=="
MASK = "[redacted]"


def _raw(tmp_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in tmp_path.glob("sessions.db*"))


def test_titles_renames_messages_and_tool_calls_mask_a_keyring_key(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.set_password("gemtui", "anthropic-api-key", KEY)
    assert get_secret("anthropic-api-key") == KEY  # read once: known from now on
    store = SessionStore(tmp_path / "sessions.db")
    sid = store.create_session(title=f"created with {KEY}")
    store.rename(sid, f"renamed to {KEY}")
    other = store.create_session()
    store.set_title_if_empty(other, f"first prompt {KEY}")
    call = FunctionCall(id="c1", name="read_file", args={"file_path": f"{KEY}.txt"})
    store.add_message(sid, "model", Content(role="model", parts=[Part(function_call=call)]))
    answer = FunctionResponse(id="c1", name="read_file", response={"output": f"key={KEY}"})
    store.add_message(sid, "user", Content(role="user", parts=[Part(function_response=answer)]))
    store.add_tool_call(
        sid, "c1", "read_file", {"file_path": f"{KEY}.txt"}, "error", error=f"no {KEY}.txt"
    )
    store.replace_history(sid, [Content.user(f"compressed {KEY}")])

    async def model_title(prompt: str) -> str:
        return f"Title {KEY}"

    third = store.create_session()
    store.set_title_if_empty(third, "auto")
    asyncio.run(improve_title(store, third, "auto", model_title))
    titles = {s.title for s in store.list_sessions()}
    store.close()
    assert KEY.encode() not in _raw(tmp_path)
    assert titles == {f"renamed to {MASK}", f"first prompt {MASK}", f"Title {MASK}"}


def test_a_key_stored_in_the_keyring_is_masked_at_once(tmp_path: Path) -> None:
    set_secret("gemini-api-key", "AIzaSyWelcomeScreen0123456789")
    with SessionStore(tmp_path / "sessions.db") as store:
        sid = store.create_session()
        store.add_message(sid, "user", Content.user("my key AIzaSyWelcomeScreen0123456789"))
    assert b"WelcomeScreen" not in _raw(tmp_path)


def test_exports_mask_a_key_an_older_store_kept(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    with SessionStore(tmp_path / "sessions.db") as store:
        sid = store.create_session(title="t")
        store.add_message(sid, "user", Content.user("hello"))
    # written before the key was known (an older gemtui, another machine's keyring)
    with sqlite3.connect(tmp_path / "sessions.db") as db:
        db.execute("UPDATE sessions SET title = ?", (f"title {KEY}",))
        content = json.dumps({"role": "user", "parts": [{"text": f"key {KEY}"}]})
        db.execute("UPDATE messages SET content = ?, text = ?", (content, f"key {KEY}"))
    memory_keyring.set_password("gemtui", "anthropic-api-key", KEY)
    get_secret("anthropic-api-key")
    with SessionStore(tmp_path / "sessions.db") as store:
        md, js = store.export_markdown(sid), store.export_json(sid)
    assert KEY not in md
    assert KEY not in js
    assert md.startswith(f"# title {MASK}")
    assert f"key {MASK}" in md
    assert json.loads(js)["history"][0]["parts"][0]["text"] == f"key {MASK}"
