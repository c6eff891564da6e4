"""Decoding an HTTP/1.1 response body, a network read at a time, not a chunk at a time.

Why: a model's stream is thousands of tiny chunks, and a decoder that hands each one
over as its own event (h11's, through httpcore's layers) spent most of the client's
time on them. These decoders take whatever one read brought and return all the body
bytes in it, joined; the framing rules and limits are those of RFC 9112 (section 7.1),
checked as strictly as h11 checks them, which the tests use as the reference.
"""

from __future__ import annotations

import re

__all__ = ["MAX_LINE", "BodyError", "ChunkedBody", "LengthBody"]

MAX_LINE = 4096
"""A chunk-size line (with its extensions) or a trailer field longer than this is not
a real server's; nothing waits for its end without bound."""
MAX_TRAILERS = 16 * 1024
"""All trailer fields together, the same bound h11 puts on a head."""

_SIZE = re.compile(rb"([0-9A-Fa-f]{1,16})(?:;[^\r\n]*)?[ \t]*")
"""chunk-size [ chunk-ext ]: the extensions are read past, never used."""
_FIELD = re.compile(
    rb"[-!#$%&'*+.^_`|~0-9A-Za-z]+:[ \t]*"
    rb"(?:[\x21-\x7e\x80-\xff]+(?:[ \t]+[\x21-\x7e\x80-\xff]+)*)?[ \t]*"
)
"""A trailer field line (RFC 9110's field-line): read past, but only if well formed."""
_FRAMING = frozenset({b"transfer-encoding", b"content-length"})
"""Fields a trailer must not carry (RFC 9110, 6.5.1): they frame the message."""


class BodyError(Exception):
    """The body broke its framing: the connection cannot be trusted any further."""


class ChunkedBody:
    """``Transfer-Encoding: chunked``: feed reads, get the data they carried."""

    __slots__ = ("_crlf", "_held", "_left", "_trailer_bytes", "_trailers", "done", "extra")

    def __init__(self) -> None:
        self._held = b""
        """Bytes of a size line, a CRLF or a trailer line not yet whole."""
        self._left = 0
        """Data bytes of the current chunk still to come."""
        self._crlf = False
        """The current chunk's data is over; its CRLF is next."""
        self._trailers = False
        self._trailer_bytes = 0
        self.done = False
        self.extra = b""
        """Bytes that came after the body ended: the connection is not reusable then."""

    def feed(self, data: bytes) -> bytes:
        if self.done:
            self.extra += data
            return b""
        buf = self._held + data if self._held else data
        self._held = b""
        out: list[bytes] = []
        pos, end = 0, len(buf)
        while pos < end:
            if self._left:
                take = min(self._left, end - pos)
                out.append(buf[pos : pos + take])
                pos += take
                self._left -= take
                if self._left:
                    break
                self._crlf = True
                continue
            if self._crlf:
                if end - pos < 2:
                    break
                if buf[pos : pos + 2] != b"\r\n":
                    raise BodyError("a chunk's data did not end where its size said")
                pos += 2
                self._crlf = False
                continue
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                break
            line = buf[pos:eol]
            pos = eol + 2
            if self._trailers:
                self._trailer_bytes += len(line) + 2
                if self._trailer_bytes > MAX_TRAILERS:
                    raise BodyError(f"the trailers passed {MAX_TRAILERS:,} bytes")
                if not line:
                    self.done = True
                    self.extra = buf[pos:]
                    return b"".join(out)
                if _FIELD.fullmatch(line) is None:
                    raise BodyError(f"bad trailer field {line[:40]!r}")
                if line.split(b":", 1)[0].lower() in _FRAMING:
                    raise BodyError("a trailer tried to frame the message")
                continue
            if len(line) > MAX_LINE:
                raise BodyError(f"a chunk-size line passed {MAX_LINE:,} bytes")
            match = _SIZE.fullmatch(line)
            if match is None:
                raise BodyError(f"bad chunk-size line {line[:40]!r}")
            size = int(match.group(1), 16)
            if size:
                # The common case, a whole chunk in this read, is taken in one step.
                stop = pos + size
                if stop + 2 <= end and buf[stop : stop + 2] == b"\r\n":
                    out.append(buf[pos:stop])
                    pos = stop + 2
                else:
                    self._left = size
            else:
                self._trailers = True
        if pos < end:
            self._held = buf[pos:]
            if len(self._held) > MAX_LINE + 2 and not self._left:
                raise BodyError(f"a chunk-size or trailer line passed {MAX_LINE:,} bytes")
        return b"".join(out)

    @property
    def incomplete(self) -> str:
        return "incomplete chunked read"


class LengthBody:
    """``Content-Length: N``: the first N bytes are the body."""

    __slots__ = ("_left", "done", "extra")

    def __init__(self, length: int) -> None:
        self._left = length
        self.done = length == 0
        self.extra = b""

    def feed(self, data: bytes) -> bytes:
        if self.done:
            self.extra += data
            return b""
        if len(data) < self._left:
            self._left -= len(data)
            return data
        body, self.extra = data[: self._left], data[self._left :]
        self._left = 0
        self.done = True
        return body

    @property
    def incomplete(self) -> str:
        return f"{self._left:,} bytes of the body never came"
