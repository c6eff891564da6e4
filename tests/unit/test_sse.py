"""The SSE reader cuts frames from raw bytes on CR, LF and CRLF only, across any chunking."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gemtui.errors import StreamError
from gemtui.providers.sse import (
    FRAMES_PER_STEP,
    MAX_FRAME_CHARS,
    SseDecoder,
    iter_sse_data,
    iter_sse_json,
    read_frames_ahead,
)

TRICKY = "a\u2028b\u2029c\u0085d\x0be\x0cf\x1cg\x1dh\x1ei — ünïcødé ✓ 𝄞"
"""Characters ``str.splitlines`` would cut at, and multi-byte UTF-8 (up to 4 bytes)."""


def _frames(stream: bytes, cuts: list[int]) -> list[tuple[str, bytes]]:
    dec = SseDecoder()
    out: list[tuple[str, bytes]] = []
    last = 0
    for cut in [*sorted(set(cuts)), len(stream)]:
        out.extend(dec.feed(stream[last:cut]))
        last = cut
    return out + dec.flush()


def test_unicode_line_separators_inside_json_survive() -> None:
    payload = json.dumps({"text": TRICKY}, ensure_ascii=False)
    frames = _frames(f"data: {payload}\r\n\r\n".encode(), [])
    assert [json.loads(d)["text"] for _, d in frames] == [TRICKY]


@given(
    st.lists(st.integers(min_value=0, max_value=400), max_size=16),
    st.sampled_from(["\r\n", "\n", "\r"]),
)
def test_any_chunking_and_any_line_ending_gives_the_same_frames(cuts: list[int], eol: str) -> None:
    frames_in = [{"i": i, "t": TRICKY} for i in range(3)]
    stream = "".join(
        f"event: e{f['i']}{eol}data: {json.dumps(f, ensure_ascii=False)}{eol}{eol}"
        for f in frames_in
    ).encode()
    got = _frames(stream, [c % (len(stream) + 1) for c in cuts])
    assert [(e, json.loads(d)) for e, d in got] == [(f"e{f['i']}", f) for f in frames_in]


@given(st.lists(st.integers(min_value=0, max_value=300), max_size=16))
def test_one_data_line_frames_split_anywhere_even_inside_a_character(cuts: list[int]) -> None:
    """The servers' own shape (one ``data:`` line a frame, CRLF): a cut in the middle of a
    multi-byte character or between CR and LF changes nothing."""
    texts = [f"{i} {TRICKY}" for i in range(4)]
    stream = b"".join(
        b"data: " + json.dumps({"t": t}, ensure_ascii=False).encode() + b"\r\n\r\n" for t in texts
    )
    got = _frames(stream, [c % (len(stream) + 1) for c in cuts])
    assert [json.loads(d.decode())["t"] for _, d in got] == texts


def test_a_frame_a_read_takes_the_short_way_with_the_same_result() -> None:
    dec = SseDecoder()
    assert dec.feed(b"data: {}\r\n\r\n") == [("", b"{}")]
    assert dec.feed(b"data:{}\n\n") == [("", b"{}")]
    assert dec.feed(b"data: 1\r\ndata: 2\r\n\r\n") == [("", b"1\n2")]
    assert dec.feed(b"data: 3\r\r") == []  # the last CR may be half a CRLF: held back
    assert dec.feed(b"data: 4\n\r\n") == [("", b"3"), ("", b"4")]
    assert dec.flush() == []


def test_multi_line_data_comments_and_unterminated_tail() -> None:
    dec = SseDecoder()
    got = dec.feed(b": ping\n\ndata: a\ndata: b\n\ndata: incomplete")
    assert got == [("", b"a\nb")]
    assert dec.flush() == []


def test_a_comment_line_inside_a_frame_is_ignored() -> None:
    got = _frames(b'data: {"a":\r\n: keep-alive\r\ndata: 1}\r\n\r\n', [9, 20])
    assert [json.loads(d) for _, d in got] == [{"a": 1}]


def test_a_cr_held_back_at_the_end_of_the_stream_still_ends_a_line() -> None:
    dec = SseDecoder()
    assert dec.feed(b"data: 1\r\r") == []
    assert dec.flush() == [("", b"1")]
    assert dec.feed(b"data: 2\r") == []
    assert dec.flush() == []  # "data: 2\n" is a line but not a frame: no blank line came


def test_a_frame_that_never_ends_is_stopped() -> None:
    dec = SseDecoder()
    piece = b"x" * (1 << 20)
    for _ in range(MAX_FRAME_CHARS // len(piece)):
        assert dec.feed(piece) == []
    with pytest.raises(StreamError) as err:
        dec.feed(piece)
    assert err.value.kind == "malformed"


def _response(body: bytes, *, chunks: int = 7) -> httpx.Response:
    """A streamed response whose body arrives in ``chunks`` pieces of any size."""
    size = max(1, len(body) // chunks)
    pieces = [body[i : i + size] for i in range(0, len(body), size)]

    class _Body(httpx.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[override]
            for p in pieces:
                yield p

    return httpx.Response(200, stream=_Body(), headers={"content-type": "text/event-stream"})


async def test_blank_frames_are_skipped_and_events_named() -> None:
    body = b'data: \r\n\r\nevent: ping\r\ndata:   \r\n\r\nevent: e\r\ndata: {"x": 1}\r\n\r\n'
    got = [item async for item in iter_sse_data(_response(body))]
    assert got == [("e", b'{"x": 1}')]


async def test_batches_hold_every_frame_in_order_and_skip_blank_ones() -> None:
    body = b"".join(b'data: {"i": %d}\r\n\r\n' % i for i in range(50)) + b"data: \r\n\r\n"
    batches = [b async for b in read_frames_ahead(_response(body, chunks=9))]
    assert all(batches)
    assert [(e, json.loads(d)["i"]) for b in batches for e, d in b] == [("", i) for i in range(50)]


async def test_a_flood_read_in_one_go_is_handed_on_in_steps_with_the_loop_between() -> None:
    """A whole answer in one network read: the frames come in slices, and what the loop
    was asked to run meanwhile (the screen's next frame) runs between two slices."""
    total = 3 * FRAMES_PER_STEP + 5
    body = b"".join(b'data: {"i": %d}\r\n\r\n' % i for i in range(total))
    loop = asyncio.get_running_loop()
    ran: list[int] = []
    seen: list[int] = []
    async for batch in read_frames_ahead(_response(body, chunks=1)):
        assert len(batch) <= FRAMES_PER_STEP
        assert ran == ([len(seen)] if seen else [])  # the turn asked for came in between
        seen.extend(json.loads(d)["i"] for _e, d in batch)
        ran.clear()
        loop.call_soon(ran.append, len(seen))  # the loop's turn must come before the next
    assert seen == list(range(total))


async def test_json_frames_stop_at_the_done_marker_and_a_bad_frame_raises() -> None:
    body = b'data: {"a": 1}\n\ndata: [DONE]\n\ndata: {"b": 2}\n\n'
    got = [f.data async for f in iter_sse_json(_response(body), done_marker="[DONE]")]
    assert got == [{"a": 1}]
    bad = b'data: {"a": 1}\n\ndata: {"a": \xff oops\n\n'
    seen: list[object] = []

    async def read() -> None:
        async for frame in iter_sse_json(_response(bad)):
            seen.append(frame.data)

    with pytest.raises(StreamError) as err:
        await read()
    assert seen == [{"a": 1}]
    assert err.value.kind == "malformed"
    assert "malformed SSE frame from server" in str(err.value)
    assert "\ufffd oops" in str(err.value)


def _reference(stream: bytes) -> list[tuple[str, bytes]]:
    """The frames of ``stream`` by the spec, line by line, with no short cut: what every
    way of feeding the decoder must agree with. A CR at the very end is a line end (the
    stream is over); an unterminated last frame is dropped."""
    lines = stream.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")[:-1]
    frames: list[tuple[str, bytes]] = []
    event, data = "", []
    for line in lines:
        if not line:
            if data or event:
                frames.append((event, b"\n".join(data)))
            event, data = "", []
        elif not line.startswith(b":"):
            name, _, value = line.partition(b":")
            value = value[1:] if value.startswith(b" ") else value
            if name == b"data":
                data.append(value)
            elif name == b"event":
                event = value.decode("utf-8", "replace")
    return frames


@given(
    st.lists(
        st.sampled_from(
            [b"data:", b"data: ", b"event: e", b": c", b"a", b" ", b"\r", b"\n", b"data: {}\n\n"]
        ),
        max_size=14,
    ),
    st.lists(st.integers(min_value=0, max_value=200), max_size=4),
)
def test_every_way_of_feeding_gives_the_frames_the_spec_gives(
    pieces: list[bytes], cuts: list[int]
) -> None:
    """Whole (the one-frame and many-plain-frames short cuts), byte by byte, or cut
    anywhere: the decoder must cut the frames a plain reading of the spec cuts."""
    stream = b"".join(pieces)
    whole = SseDecoder()
    at_once = whole.feed(stream) + whole.flush()
    expected = _reference(stream)
    assert at_once == expected
    assert _frames(stream, list(range(len(stream)))) == expected
    assert _frames(stream, [c % (len(stream) + 1) for c in cuts]) == expected


@pytest.mark.parametrize("encoding", ["gzip", "identity", None])
async def test_a_compressed_body_is_inflated_and_a_plain_one_read_as_it_came(
    encoding: str | None,
) -> None:
    import gzip

    body = b"".join(b'data: {"i": %d}\n\n' % i for i in range(40))
    wire = gzip.compress(body) if encoding == "gzip" else body
    response = _response(wire, chunks=5)
    if encoding is not None:
        response.headers["content-encoding"] = encoding
    if encoding != "gzip":  # read as it came: the pass-through decoding is not needed

        def no_decoding(*args: object) -> object:
            raise AssertionError("a plain body went through the decoding layer")

        response.aiter_bytes = no_decoding  # type: ignore[method-assign]
    batches = [b async for b in read_frames_ahead(response)]
    assert [json.loads(d)["i"] for b in batches for _e, d in b] == list(range(40))


async def test_a_body_already_read_is_still_cut_into_frames() -> None:
    """A response that holds its body (a test double, an event hook that read it)."""
    response = httpx.Response(200, content=b'data: {"a": 1}\n\ndata: {"b": 2}\n\n')
    batches = [b async for b in read_frames_ahead(response)]
    assert [d for b in batches for _e, d in b] == [b'{"a": 1}', b'{"b": 2}']
