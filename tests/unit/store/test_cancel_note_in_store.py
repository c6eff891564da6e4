"""The note after a cancelled prompt is saved with the history (a resumed session must
still tell the model), but it is not a prompt: turn counts leave it out, in the session
and in a fork of it."""

from __future__ import annotations

from pathlib import Path

from gemtui.store import SessionStore
from gemtui.wire import Content
from gemtui.wire.cancel_note import cancel_note, is_cancel_note


def test_a_cancelled_prompt_counts_once_here_and_in_a_fork(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    sid = store.create_session(workspace="/ws", provider="gemini", model="gemini-2.5-pro")
    for content in (
        Content.user("write the release notes"),
        Content.model("Draft one"),
        cancel_note(),
        Content.user("what is two plus two"),
        Content.model("Four."),
    ):
        store.add_message(sid, content.role or "user", content)
    info = store.get(sid)
    assert info is not None
    assert info.turns == 2
    assert is_cancel_note(store.load_history(sid)[2]), "saved as it was said"
    fork = store.fork(sid)
    forked = store.get(fork)
    assert forked is not None
    assert forked.turns == 2
    store.close()
