"""Keeping secrets out of the store: any known key or token value is masked before a write.

The model never needs to see a key, but a person may paste one or a tool may print one
(``env``); the store is a plain file, so those values are replaced on the way in.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping

__all__ = ["MASK", "Redactor"]

MASK = "[redacted]"
_SECRET_NAME = re.compile(r"(API_KEY|_TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
_MIN_LEN = 8


class Redactor:
    """Replaces each known secret value with ``[redacted]``; a no-op when none are known."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        plain = {s for s in secrets if s and len(s) >= _MIN_LEN}
        # stored content is JSON: a secret with quotes or backslashes appears escaped there
        escaped = {json.dumps(s, ensure_ascii=False)[1:-1] for s in plain}
        values = sorted(plain | escaped, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(v) for v in values)) if values else None

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, extra: Iterable[str] = ()
    ) -> Redactor:
        env = os.environ if environ is None else environ
        found = [v for k, v in env.items() if _SECRET_NAME.search(k)]
        return cls([*found, *extra])

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)
