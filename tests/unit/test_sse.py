"""The SSE reader splits on CR, LF and CRLF only, across any chunking."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gemtui.providers.sse import SseDecoder

TRICKY = "a\u2028b\u2029c\u0085d\x0be\x0cf\x1cg\x1dh\x1ei"


def _frames(stream: str, cuts: list[int]) -> list[tuple[str, str]]:
    dec = SseDecoder()
    out: list[tuple[str, str]] = []
    last = 0
    for cut in [*sorted(set(cuts)), len(stream)]:
        out.extend(dec.feed(stream[last:cut]))
        last = cut
    return out + dec.flush()


def test_unicode_line_separators_inside_json_survive() -> None:
    payload = json.dumps({"text": TRICKY}, ensure_ascii=False)
    frames = _frames(f"data: {payload}\r\n\r\n", [])
    assert [json.loads(d)["text"] for _, d in frames] == [TRICKY]


@given(
    st.lists(st.integers(min_value=0, max_value=200), max_size=12),
    st.sampled_from(["\r\n", "\n", "\r"]),
)
def test_any_chunking_and_any_line_ending_gives_the_same_frames(cuts: list[int], eol: str) -> None:
    frames_in = [{"i": i, "t": TRICKY} for i in range(3)]
    stream = "".join(
        f"event: e{f['i']}{eol}data: {json.dumps(f, ensure_ascii=False)}{eol}{eol}"
        for f in frames_in
    )
    got = _frames(stream, [c % (len(stream) + 1) for c in cuts])
    assert [(e, json.loads(d)) for e, d in got] == [(f"e{f['i']}", f) for f in frames_in]


def test_multi_line_data_comments_and_unterminated_tail() -> None:
    dec = SseDecoder()
    got = dec.feed(": ping\n\ndata: a\ndata: b\n\ndata: incomplete")
    assert got == [("", "a\nb")]
    assert dec.flush() == []
