"""Test-wide set-up: all state under a temp GEMTUI_HOME, an in-memory keyring, no real keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend

pytest_plugins = ["gemtui.testing.pytest_plugin"]

_KEY_VARS = (
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "CODE_ASSIST_ENDPOINT",
    "GOOGLE_CLOUD_PROJECT",
    "GEMTUI_PROVIDER",
    "GEMTUI_MODEL",
    "GEMTUI_APPROVAL_MODE",
    "GEMTUI_MAX_TURNS",
    "GEMTUI_THEME",
    "GEMTUI_SYSTEM_MD",
    "GEMINI_SYSTEM_MD",
)


class MemoryKeyring(KeyringBackend):
    """A real keyring backend that keeps secrets in memory, for tests."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if (service, username) not in self.store:
            raise PasswordDeleteError(username)
        del self.store[(service, username)]


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "gemtui-home"
    home.mkdir()
    monkeypatch.setenv("GEMTUI_HOME", str(home))
    for var in _KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def forget_secrets() -> Iterator[None]:
    """Secrets registered by one test (a keyring read) are not masked in the next."""
    from gemtui.redact import forget_registered

    forget_registered()
    yield
    forget_registered()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every snapshot test ``snapshot``: `make test` runs them on their own after the
    parallel run, as a picture taken beside other busy workers can miss a frame."""
    for item in items:
        if "snap_compare" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.snapshot)
