"""Tokens round-trip through the keyring (service gemtui), are masked, and are deleted."""

from __future__ import annotations

import keyring

from gemtui import redact
from gemtui.auth import store
from gemtui.auth.exchange import Tokens


def test_round_trip_mask_and_forget() -> None:
    tokens = Tokens("ya29.abcdefghijkl", "1//refresh-abcdefghijkl", 1234.5, "h.p.s", "a@b.c")
    store.save(tokens)
    assert keyring.get_password("gemtui", store.ENTRY) is not None
    redact.forget_registered()
    loaded = store.load()
    assert loaded == tokens
    assert "1//refresh-abcdefghijkl" not in redact.redact("x 1//refresh-abcdefghijkl x")
    store.forget()
    assert store.load() is None
    assert keyring.get_password("gemtui", store.ENTRY) is None


def test_unreadable_entry_means_signed_out() -> None:
    keyring.set_password("gemtui", store.ENTRY, "{not json")
    assert store.load() is None
