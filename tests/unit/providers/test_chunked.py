"""The bulk body decoders agree with h11, byte for byte, however the body is cut.

h11 is the reference: it is what httpx used for these bodies before, and it is strict.
Every body is fed to both, whole and cut at random points; the data, where the body
ends and what came after it must match, and a body h11 refuses must be refused.
"""

from __future__ import annotations

import itertools
import re

import h11
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemtui.providers.chunked import MAX_LINE, BodyError, ChunkedBody, LengthBody


def _reference(body: bytes) -> tuple[bytes, bytes] | None:
    """h11's reading of a chunked body: (data, bytes after the end), or None if refused
    or not complete."""
    conn = h11.Connection(h11.CLIENT)
    conn.send(
        h11.Request(method="POST", target="/", headers=[("host", "x"), ("content-length", "0")])
    )
    conn.send(h11.EndOfMessage())
    conn.receive_data(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
    data = b""
    try:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                return None
            if isinstance(event, h11.Data):
                data += event.data
            if isinstance(event, h11.EndOfMessage):
                return data, conn.trailing_data[0]
    except h11.RemoteProtocolError:
        return None


def _decode(body: bytes, cuts: list[int]) -> tuple[bytes, bytes] | None:
    decoder = ChunkedBody()
    data = b""
    edges = sorted({0, *(c % (len(body) + 1) for c in cuts), len(body)})
    try:
        for start, stop in itertools.pairwise(edges):
            data += decoder.feed(body[start:stop])
    except BodyError:
        return None
    return (data, decoder.extra) if decoder.done else None


def _chunk(data: bytes, ext: bytes = b"", upper: bool = False) -> bytes:
    size = (b"%X" if upper else b"%x") % len(data)
    return size + ext + b"\r\n" + data + b"\r\n"


chunks = st.lists(st.binary(min_size=1, max_size=300), max_size=12)
exts = st.sampled_from([b"", b";a=b", b";x ", b"\t", b';name="v"', b";"])
trailers = st.sampled_from([b"", b"x-a: 1\r\n", b"x-a: 1\r\nx-b: two\r\n"])


@settings(max_examples=400, deadline=None)
@given(chunks, exts, trailers, st.binary(max_size=40), st.lists(st.integers(0, 5000), max_size=8))
def test_well_formed_bodies_read_as_h11_reads_them(
    parts: list[bytes], ext: bytes, trailer: bytes, after: bytes, cuts: list[int]
) -> None:
    body = b"".join(_chunk(p, ext, i % 2 == 0) for i, p in enumerate(parts))
    body += b"0" + ext + b"\r\n" + trailer + b"\r\n" + after
    expected = _reference(body)
    assert expected is not None
    assert expected[0] == b"".join(parts)
    assert _decode(body, cuts) == expected
    assert _decode(body, list(range(len(body)))) == expected  # a byte at a time


@settings(max_examples=600, deadline=None)
@given(
    chunks,
    st.binary(min_size=1, max_size=8),
    st.integers(0, 10_000),
    st.lists(st.integers(0, 5000), max_size=6),
)
def test_a_corrupted_body_is_refused_where_h11_refuses_it(
    parts: list[bytes], junk: bytes, where: int, cuts: list[int]
) -> None:
    body = b"".join(_chunk(p) for p in parts) + b"0\r\n\r\n"
    at = where % (len(body) + 1)
    corrupt = body[:at] + junk + body[at:]
    expected = _reference(corrupt)
    got = _decode(corrupt, cuts)
    if expected is None:
        # Refused, or (h11 waiting for more) never complete: neither ends the body.
        assert got is None
    elif got is None:
        # Stricter than h11 in one way only: a bare LF never ends a line (RFC 9112
        # lets a reader accept one; refusing is the safer reading).
        assert re.search(rb"(?<!\r)\n", corrupt)
    else:
        assert got == expected


@pytest.mark.parametrize(
    "body",
    [
        b"zz\r\nab\r\n0\r\n\r\n",  # not hex
        b"-1\r\nab\r\n0\r\n\r\n",
        b"0x2\r\nab\r\n0\r\n\r\n",
        b"2\r\nabc\r\n0\r\n\r\n",  # data longer than its size
        b"2\r\nab\n0\r\n\r\n",  # a bare LF after the data
        b"11111111111111111\r\n",  # 17 hex digits
        b" 2\r\nab\r\n0\r\n\r\n",  # leading space
        b"2 ;x\r\nab\r\n0\r\n\r\n",  # space before the extension
        b"0\r\ncontent-length: 5\r\n\r\n",  # trailers may not frame the message
        b"0\r\nTransfer-Encoding: gzip\r\n\r\n",
    ],
)
def test_broken_framing_is_refused(body: bytes) -> None:
    assert _reference(body) is None or b"0\r\nc" in body  # h11 lets a Content-Length by
    with pytest.raises(BodyError):
        ChunkedBody().feed(body)


def test_a_size_line_that_never_ends_is_refused_at_the_limit() -> None:
    decoder = ChunkedBody()
    decoder.feed(b"1;" + b"x" * (MAX_LINE // 2))
    with pytest.raises(BodyError, match="passed"):
        decoder.feed(b"x" * MAX_LINE)


def test_trailers_without_end_are_refused_at_the_limit() -> None:
    decoder = ChunkedBody()
    decoder.feed(b"0\r\n" + (b"x-pad: " + b"y" * 100 + b"\r\n") * 150)
    with pytest.raises(BodyError, match="trailers"):
        decoder.feed(b"x-pad: " + b"y" * 2000 + b"\r\n")


def test_a_huge_chunk_is_streamed_not_held() -> None:
    decoder = ChunkedBody()
    assert decoder.feed(b"100000\r\n" + b"a" * 1000) == b"a" * 1000
    assert decoder.feed(b"b" * 5000) == b"b" * 5000
    assert not decoder.done


def test_a_length_body_stops_at_its_length_and_keeps_the_rest() -> None:
    body = LengthBody(5)
    assert body.feed(b"abc") == b"abc"
    assert not body.done
    assert body.feed(b"defgh") == b"de"
    assert body.done
    assert body.extra == b"fgh"
    assert LengthBody(0).done
