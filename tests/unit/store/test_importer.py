"""Gemini CLI's saved chats (JSONL and the older whole-file JSON) appear read-only."""

from __future__ import annotations

import shutil
from pathlib import Path

from gemtui.store import SessionStore, open_session_for_resume
from gemtui.store.importer import import_gemini_cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "gemini_cli"


def _home(tmp_path: Path) -> Path:
    home = tmp_path / ".gemini"
    shutil.copytree(FIXTURES, home)
    return home


def test_jsonl_and_legacy_json_chats_are_imported_and_searchable(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    report = import_gemini_cli(store, gemini_home=_home(tmp_path))
    assert report.imported == 2
    assert not report.failed
    jsonl = store.get("gemini-cli-3f2a9c1e-7b4d-4e21-9a6f-0c8d5e2b1a47")
    assert jsonl is not None
    assert jsonl.imported
    assert jsonl.source == "gemini-cli"
    assert jsonl.title == "Trailing commas in config.json"  # the $set summary
    assert jsonl.model == "gemini-2.5-pro"
    history = store.load_history(jsonl.id)
    roles = [c.role for c in history]
    assert roles == ["user", "model", "user", "model"]  # info notice and rewound prompt dropped
    assert history[1].parts[-1].function_call is not None
    assert history[2].parts[0].function_response is not None
    legacy = store.get("gemini-cli-9b7c6d5e-aaaa-4bbb-8ccc-1d2e3f4a5b6c")
    assert legacy is not None
    assert legacy.title == "Add a --verbose flag to the flamingo exporter"
    assert [m.session.id for m in store.search("flamingo")] == [legacy.id]
    assert store.search("json5")[0].session.id == jsonl.id


def test_reimport_is_idempotent(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    home = _home(tmp_path)
    import_gemini_cli(store, gemini_home=home)
    again = import_gemini_cli(store, gemini_home=home)
    assert again.imported == 0
    assert again.unchanged == 2
    assert store.count_sessions() == 2


def test_resuming_an_imported_session_continues_a_copy(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    import_gemini_cli(store, gemini_home=_home(tmp_path))
    sid, history, meta = open_session_for_resume(store, "gemini-cli-9b7c")
    assert meta.forked_from == "gemini-cli-9b7c6d5e-aaaa-4bbb-8ccc-1d2e3f4a5b6c"
    assert sid != meta.forked_from
    assert len(history) == 2
    assert not store.get(sid).imported  # type: ignore[union-attr]
