"""One redactor for every exit: any secret gemtui knows is masked before it leaves the process.

Secrets are the values of the key environment variables (``KEY_ENV_VARS``), values read
from or stored in the keyring and credentials written in settings for MCP servers
(``config.secrets`` registers them), and anything else a caller passes to ``register``
(OAuth tokens). The store, exports, the log file, headless
stdout and stderr and the TUI's notices all mask through this module, so a key that one
layer forgot cannot come out of another.

Length policy. A registered value is masked whatever its length, but how it is matched
depends on that length: 8 characters or more, anywhere it occurs (a key glued to other
text is still a key); shorter, only where it stands as a token of its own (not inside a
word: a run of letters and digits, also joined by ``-`` or ``_`` as in ``drwxr-xr-x`` or
``max_x``). Without that rule a placeholder such as
``OPENAI_API_KEY=x`` (local servers need none) would turn every "x" of every answer into
``[redacted]``; with it, ``key=x``, ``"x"`` and ``?key=x&`` are still masked. Variables
that only *look* secret (``*_TOKEN``, ``*PASSWORD``...) count from 8 characters, so
``NO_PASSWORD=1`` does not mask every "1". A blank value, or a short one with no letter
or digit, is not a secret at all: it could only be told from punctuation by masking all
punctuation.

Every value is also masked in the forms it takes inside JSON strings, URLs and Python
reprs. Text that arrives in pieces (a streamed answer, live command output) goes through
``StreamRedactor`` so a secret split across two pieces is still caught.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, TextIO, cast
from urllib.parse import quote, quote_plus

__all__ = [
    "KEY_ENV_VARS",
    "MASK",
    "RedactingFormatter",
    "RedactingWriter",
    "Redactor",
    "StreamRedactor",
    "current",
    "finish",
    "forget_registered",
    "redact",
    "redact_data",
    "redact_wire_content",
    "register",
    "register_header",
    "register_variable",
    "wrap",
]

MASK = "[redacted]"

KEY_ENV_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
"""Keys gemtui itself reads: masked whatever their length."""

SUBSTRING_MIN = 8
"""From this length a value is masked anywhere; shorter ones only as a token of their own."""

_SECRET_NAME = re.compile(r"(API_KEY|_TOKEN|SECRET|PASSWORD|_KEY|_PAT)$", re.IGNORECASE)
_SECRET_HEADER = re.compile(r"authorization|api[-_]?key|token|secret|cookie|password", re.I)
_WORD = "A-Za-z0-9"
_JOINER = "-_"
"""Inside a word (``drwxr-xr-x``, ``max_x``) these join letters; elsewhere they are punctuation."""


def _forms(secret: str) -> set[str]:
    """The secret as it appears raw, JSON-escaped, URL-encoded and in a Python repr."""
    forms = {
        secret,
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(secret, ensure_ascii=True)[1:-1],
        quote(secret, safe=""),
        quote_plus(secret, safe=""),
        repr(secret)[1:-1],
    }
    return {f for f in forms if f}


def _maskable(secret: str) -> bool:
    """Not empty, and a short value has a letter or digit (``-`` alone is punctuation)."""
    return bool(secret.strip()) and (
        len(secret) >= SUBSTRING_MIN or any(c.isalnum() for c in secret)
    )


def _alternative(form: str, bounded: bool) -> str:
    body = re.escape(form)
    if not bounded:
        return body
    before = f"(?<![{_WORD}])(?<![{_WORD}][{_JOINER}])" if form[0].isalnum() else ""
    after = f"(?![{_WORD}])(?![{_JOINER}][{_WORD}])" if form[-1].isalnum() else ""
    return before + body + after


class Redactor:
    """Replaces each known secret with ``[redacted]``; a no-op when none are known."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = {s for s in secrets if _maskable(s)}
        self.secrets = frozenset(values)
        forms: dict[str, bool] = {}
        for s in values:
            bounded = len(s) < SUBSTRING_MIN
            for f in _forms(s):
                forms[f] = forms.get(f, True) and bounded  # unbounded wins
        self._forms = forms
        self._longest_bounded = max((len(f) for f, b in forms.items() if b), default=0)
        ordered = sorted(forms, key=len, reverse=True)  # longest first: no partial mask
        self._pattern = (
            re.compile("|".join(_alternative(f, forms[f]) for f in ordered)) if ordered else None
        )

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)

    def hold_from(self, text: str) -> int:
        """Where the longest tail of ``text`` that could begin a secret starts (else its end).

        A streamed piece is written only up to there; the tail waits for the next piece.
        """
        start = len(text)
        for form in self._forms:
            first = form[0]
            lo = max(0, len(text) - len(form))
            i = text.find(first, lo)
            while i != -1 and i < start:
                if form.startswith(text[i:]):
                    start = i
                    break
                i = text.find(first, i + 1)
        if self._longest_bounded and text and text[-1] in _JOINER:
            # a short secret just before a trailing "-" is a word's part if a letter follows
            start = min(start, max(0, len(text) - 1 - self._longest_bounded))
        return start

    def split_final(self, context: str, text: str, *, end: bool = False) -> tuple[str, str]:
        """(masked text that no later piece can change, raw tail to hold).

        ``context`` is the text just before (already written), for the token check of
        short secrets; at the ``end`` of the stream nothing is held.
        """
        if self._pattern is None:
            return text, ""
        hold = len(text) if end else self.hold_from(text)
        out: list[str] = []
        pos = 0
        whole = context + text
        for m in self._pattern.finditer(whole, len(context)):
            first = m.start() - len(context)
            if first >= hold:
                break
            out += [text[pos:first], MASK]
            pos = m.end() - len(context)
        cut = max(hold, pos)
        out.append(text[pos:cut])
        return "".join(out), text[cut:]


# -- the process-wide set of secrets ------------------------------------------------------

_lock = threading.RLock()
"""Reentrant: a ``RedactingWriter`` dropped in a reference cycle is closed by the garbage
collector wherever a collection starts, also inside ``current()``; its close masks the
tail it held, which enters ``current()`` again on the same thread (a plain lock hung
the run for good)."""
_registered: set[str] = set()
_version = 0
"""Bumped by every change to ``_registered``: the compiled redactor is rebuilt only then."""
_lookalikes: frozenset[str] | None = None
"""Values of variables that only look secret, read once (scanning the environment per
call would cost more than masking)."""
_cache: tuple[tuple[object, ...], Redactor] | None = None


def register(secret: str | None) -> None:
    """Mask ``secret`` from now on, everywhere (a key read from the keyring, a token)."""
    global _version
    if not secret:
        return
    with _lock:
        for value in {secret, secret.strip()}:  # a pasted key may carry a newline
            if value and value not in _registered:
                _registered.add(value)
                _version += 1


def register_variable(name: str, value: str | None) -> None:
    """Register ``value`` if the variable's name says it is a secret (from 8 characters,
    like a look-alike in the environment)."""
    if value and _SECRET_NAME.search(name) and len(value) >= SUBSTRING_MIN:
        register(value)


def register_header(name: str, value: str | None) -> None:
    """Register an HTTP header's value if its name says it carries a credential, and the
    credential alone too (``Bearer <token>``)."""
    if not value or not _SECRET_HEADER.search(name):
        return
    register(value)
    scheme, _, credential = value.partition(" ")
    if credential.strip() and scheme.isalpha():
        register(credential.strip())


def forget_registered() -> None:
    """Drop the registered secrets and re-read the environment (tests start clean)."""
    global _cache, _lookalikes, _version
    with _lock:
        _registered.clear()
        _version += 1
        _lookalikes = None
        _cache = None


def _lookalike_values(environ: Mapping[str, str]) -> frozenset[str]:
    return frozenset(
        value
        for name, value in environ.items()
        if name not in KEY_ENV_VARS and _SECRET_NAME.search(name) and len(value) >= SUBSTRING_MIN
    )


def current() -> Redactor:
    """The redactor for every secret known right now (cheap when nothing changed).

    gemtui's own key variables are looked up on every call, so a key set later (a test,
    the welcome screen) counts at once.
    """
    global _cache, _lookalikes
    with _lock:
        if _lookalikes is None:
            _lookalikes = _lookalike_values(os.environ)
        keys = tuple(os.environ.get(name) for name in KEY_ENV_VARS)
        state = (_version, keys)
        if _cache is None or _cache[0] != state:
            known = {*_registered, *_lookalikes, *(k for k in keys if k)}
            _cache = (state, Redactor(known))
        return _cache[1]


def redact(text: str) -> str:
    """``text`` with every known secret masked."""
    return current()(text)


def redact_data(value: Any, *, keys: bool = False) -> Any:
    """A JSON-like value with every string in it masked.

    Masking the values before serialising keeps the JSON valid whatever the secret is.
    Dict keys are kept by default: they are a format's names, and a short placeholder key
    such as ``text`` must not break the structure. ``keys=True`` masks them too, for dicts
    whose names someone else chose (a model's call arguments).
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {
            (redact(k) if keys and isinstance(k, str) else k): redact_data(v, keys=keys)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_data(v, keys=keys) for v in value]
    return value


def redact_wire_content(wire: dict[str, Any]) -> dict[str, Any]:
    """A ``Content`` in wire form, masked: its values, and its function calls' argument
    names (the model chose them, so they may carry a key like any text)."""
    parts = wire.get("parts")
    if isinstance(parts, list):
        wire = {**wire, "parts": [_masked_call_args(p) for p in parts]}
    return cast("dict[str, Any]", redact_data(wire))


def _masked_call_args(part: Any) -> Any:
    call = part.get("functionCall") if isinstance(part, Mapping) else None
    if not isinstance(call, Mapping) or not isinstance(call.get("args"), Mapping):
        return part
    return {**part, "functionCall": {**call, "args": redact_data(call["args"], keys=True)}}


class StreamRedactor:
    """Masks text that arrives in pieces; a secret split between pieces is still masked.

    ``feed`` returns what is safe to show now and holds back a tail that could be the
    start of a secret; ``finish`` returns the rest at the end of the stream.
    """

    def __init__(self) -> None:
        self._held = ""
        self._context = ""
        """The last two characters written, for the token check of short secrets."""

    def feed(self, text: str) -> str:
        buf = self._held + text
        out, self._held = current().split_final(self._context, buf)
        self._remember(buf[: len(buf) - len(self._held)])
        return out

    def finish(self) -> str:
        rest, self._held = self._held, ""
        out, _ = current().split_final(self._context, rest, end=True)
        self._remember(rest)
        return out

    def _remember(self, raw: str) -> None:
        if raw:
            self._context = (self._context + raw)[-2:]


class RedactingWriter(io.TextIOBase):
    """A text stream that masks secrets in everything written to it, then passes it on.

    Flushing does not release a held tail (a secret split by a flush would leak);
    ``finish`` or ``close`` does. Anything else (``isatty``, ``fileno``) is the wrapped
    stream's.
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self._redactor = StreamRedactor()

    def write(self, text: str) -> int:
        shown = self._redactor.feed(text)
        if shown:
            self.stream.write(shown)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def finish(self) -> None:
        rest = self._redactor.finish()
        if rest:
            self.stream.write(rest)
        self.stream.flush()

    def close(self) -> None:
        """Release the held tail; the wrapped stream stays open (it is not ours)."""
        with contextlib.suppress(OSError, ValueError):
            self.finish()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", "utf-8")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def wrap(stream: TextIO) -> TextIO:
    """``stream`` behind a ``RedactingWriter`` (once: an already wrapped one is kept)."""
    if isinstance(stream, RedactingWriter):
        return stream
    return cast("TextIO", RedactingWriter(stream))


def finish(stream: TextIO) -> None:
    """Write what a wrapped stream still holds back (its end has come).

    A reader that went away (``| head``) or a closed stream is not an error here: there
    is nobody left to show the rest to.
    """
    if isinstance(stream, RedactingWriter):
        with contextlib.suppress(OSError, ValueError):
            stream.finish()


class RedactingFormatter(logging.Formatter):
    """A log formatter whose whole output (message, arguments, traceback) is masked."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))
