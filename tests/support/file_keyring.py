"""A real keyring backend that keeps its secrets in a JSON file, for subprocess tests.

A child ``gemtui`` picks it with ``PYTHON_KEYRING_BACKEND=tests.support.file_keyring.FileKeyring``
(keyring's own switch) and finds the file in ``GEMTUI_TEST_KEYRING``; keep that file
outside ``GEMTUI_HOME`` so scans of the home see only what gemtui wrote.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

ENV = "GEMTUI_TEST_KEYRING"
BACKEND = "tests.support.file_keyring.FileKeyring"


class FileKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    @property
    def _path(self) -> Path:
        return Path(os.environ[ENV])

    def _load(self) -> dict[str, str]:
        try:
            data: dict[str, str] = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return data

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._path.write_text(json.dumps(data), encoding="utf-8")

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError(username)
        self._path.write_text(json.dumps(data), encoding="utf-8")
