"""Gemini frames: each validated, runs of plain text joined, everything else untouched."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gemtui.errors import StreamError
from gemtui.providers.gemini_frames import is_answer_text, parse_frame, parse_frames
from gemtui.wire import GenerateContentResponse


def frame(
    text: str | None = "x",
    *,
    thought: bool = False,
    finish: str | None = None,
    usage: int | None = None,
    rid: str = "r1",
    index: int = 0,
    **extra: Any,
) -> bytes:
    part: dict[str, Any] = {} if text is None else {"text": text}
    if thought:
        part["thought"] = True
    cand: dict[str, Any] = {"content": {"parts": [part], "role": "model"}, "index": index}
    if finish:
        cand["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [cand], "modelVersion": "m", "responseId": rid, **extra}
    if usage is not None:
        out["usageMetadata"] = {"promptTokenCount": usage, "totalTokenCount": usage}
    return json.dumps(out, ensure_ascii=False).encode()


def texts(responses: list[GenerateContentResponse]) -> list[str | None]:
    return [
        r.candidates[0].content.parts[0].text if r.candidates and r.candidates[0].content else None
        for r in responses
    ]


def test_text_frames_that_arrive_together_become_one_chunk_with_the_latest_usage() -> None:
    [merged] = parse_frames([frame("Hel", usage=1), frame("lo, "), frame("wörld", usage=3)])
    assert texts([merged]) == ["Hello, wörld"]
    assert merged.usage_metadata is not None
    assert merged.usage_metadata.prompt_token_count == 3
    assert (merged.model_version, merged.response_id) == ("m", "r1")
    assert merged.candidates is not None
    assert merged.candidates[0].index == 0
    assert merged.candidates[0].content is not None
    assert merged.candidates[0].content.role == "model"


def test_thoughts_finish_and_other_answers_break_a_run_and_pass_unchanged() -> None:
    got = list(
        parse_frames(
            [
                frame("a"),
                frame("b"),
                frame("think", thought=True),
                frame("c"),
                frame("d", rid="r2"),
                frame("e", rid="r2", index=1),
                frame("", finish="STOP", usage=9),
            ]
        )
    )
    assert texts(got) == ["ab", "think", "c", "d", "e", ""]
    assert got[1].candidates[0].content.parts[0].thought is True  # type: ignore[index,union-attr]
    assert got[-1].candidates[0].finish_reason == "STOP"  # type: ignore[index]
    assert got[-1].usage_metadata.total_token_count == 9  # type: ignore[union-attr]


def test_a_frame_with_a_key_the_text_shape_does_not_know_keeps_it() -> None:
    """The strict text shape refuses it; the whole wire type takes it, extra key kept."""
    got = list(parse_frames([frame("a"), frame("b", somethingNew=1), frame("c")]))
    assert texts(got) == ["a", "b", "c"]
    assert got[1].model_extra == {"somethingNew": 1}


def test_a_malformed_frame_raises_after_the_text_before_it() -> None:
    seen: list[GenerateContentResponse] = []
    frames = [frame("one "), frame("two"), b'{"candidates": [{"content": ', frame("never")]

    def read() -> None:
        for response in parse_frames(frames):
            seen.append(response)

    with pytest.raises(StreamError) as err:
        read()
    assert texts(seen) == ["one two"]
    assert err.value.kind == "malformed"
    assert 'malformed SSE frame from server: \'{"candidates"' in str(err.value)


@pytest.mark.parametrize(
    "data",
    [
        b'{"candidates": "not a list"}',
        b'{"candidates": [{"content": {"parts": [{"text": 5}]}}]}',
        b'{"candidates": [{"content": {"role": "system", "parts": [{"text": "x"}]}}]}',
        b"[1, 2]",
        b"not json",
    ],
)
def test_json_that_is_not_a_gemini_chunk_is_malformed(data: bytes) -> None:
    with pytest.raises(StreamError) as err:
        list(parse_frames([data]))
    assert err.value.kind == "malformed"
    with pytest.raises(StreamError):
        parse_frame(data)


def test_bytes_that_are_not_utf8_become_replacement_characters() -> None:
    data = b'{"candidates": [{"content": {"parts": [{"text": "caf\xff!"}]}}]}'
    [response] = parse_frames([data])
    assert texts([response]) == ["caf\ufffd!"]
    assert texts([parse_frame(data)]) == ["caf\ufffd!"]


_PIECE = st.one_of(
    st.tuples(st.just("text"), st.text(max_size=8), st.sampled_from(["r1", "r2"])),
    st.tuples(st.just("thought"), st.text(max_size=8), st.just("r1")),
    st.tuples(st.just("usage"), st.text(max_size=3), st.just("r1")),
)


@given(st.lists(_PIECE, max_size=25))
def test_joined_chunks_say_what_the_pieces_said(pieces: list[tuple[str, str, str]]) -> None:
    """Whatever the mix, the answer text, the thought text and the last usage are the same
    as reading the frames one by one; only runs of plain text are ever joined."""
    frames = [
        frame(t, thought=kind == "thought", usage=i if kind == "usage" else None, rid=rid)
        for i, (kind, t, rid) in enumerate(pieces)
    ]
    one_by_one = [parse_frame(f) for f in frames]
    joined = list(parse_frames(frames))

    def summary(rs: list[GenerateContentResponse]) -> tuple[str, str, int | None]:
        answer = thought = ""
        usage = None
        for r in rs:
            part = r.candidates[0].content.parts[0]  # type: ignore[index,union-attr]
            if part.thought:
                thought += part.text or ""
            else:
                answer += part.text or ""
            if r.usage_metadata is not None:
                usage = r.usage_metadata.prompt_token_count
        return answer, thought, usage

    assert summary(joined) == summary(one_by_one)
    assert len(joined) <= len(one_by_one)


def test_the_streams_first_text_chunk_goes_alone() -> None:
    """Thoughts first (each on its own anyway), then the answer's first words by
    themselves, then the rest of what arrived with them, joined."""
    frames = [frame("plan", thought=True), frame("Hel"), frame("lo"), frame(" you")]
    got = list(parse_frames(frames, first_alone=True))
    assert texts(got) == ["plan", "Hel", "lo you"]
    assert [is_answer_text(r) for r in got] == [False, True, True]


def test_usage_extras_are_kept_and_a_count_under_its_python_name_is_checked() -> None:
    details = [{"modality": "TEXT", "tokenCount": 4}]
    [merged] = parse_frames(
        [frame("a", usage=1), frame("b", usageMetadata={"promptTokensDetails": details})]
    )
    assert merged.usage_metadata is not None
    assert merged.usage_metadata.model_extra == {"promptTokensDetails": details}
    good = frame("c", usageMetadata={"prompt_token_count": 9})
    [parsed] = parse_frames([good])
    assert parsed.usage_metadata is not None
    assert parsed.usage_metadata.prompt_token_count == 9  # the model reads it, as before
    bad = frame("d", usageMetadata={"prompt_token_count": "many"})
    with pytest.raises(StreamError) as err:
        list(parse_frames([frame("ok"), bad, frame("later")]))
    assert err.value.kind == "malformed", "a StreamError, never pydantic's own error"
