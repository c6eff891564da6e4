"""Parts of the frames one read brought: text runs joined, the first piece alone."""

from __future__ import annotations

import json

import httpx
import pytest

from gemtui.errors import StreamError
from gemtui.providers.part_runs import join_text_parts, stream_parts
from gemtui.wire import FunctionCall, Part


def test_runs_of_plain_text_join_and_anything_else_keeps_its_place() -> None:
    call = Part(function_call=FunctionCall(name="ls", args={}))
    signed = Part(text="", thought=True, thought_signature="sig")
    got = join_text_parts(
        [
            Part(text="Hel"),
            Part(text="lo"),
            Part(text="hmm ", thought=True),
            Part(text="ok", thought=True),
            signed,
            Part(text=", "),
            call,
            Part(text="world"),
        ]
    )
    assert got == [
        Part(text="Hello"),
        Part(text="hmm ok", thought=True),
        signed,
        Part(text=", "),
        call,
        Part(text="world"),
    ]


def test_one_part_or_none_is_returned_as_it_is() -> None:
    one = [Part(text="x")]
    assert join_text_parts(one) is one
    assert join_text_parts([]) == []


def _response(body: bytes) -> httpx.Response:
    """The whole body in one read: every frame arrives together."""

    class _Body(httpx.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[override]
            yield body

    return httpx.Response(200, stream=_Body())


def _sse(*objs: object) -> bytes:
    return b"".join(b"data: " + json.dumps(o).encode() + b"\n\n" for o in objs)


def _feed(_event: str, data: bytes, parts: list[Part]) -> bool:
    obj = json.loads(data)
    if obj == "end":
        return True
    if obj == "bad":
        raise StreamError("bad frame", kind="malformed")
    if obj:
        parts.append(Part(text=obj))
    return False


async def test_the_first_piece_goes_alone_then_each_read_is_one_list() -> None:
    body = _sse("", "Hello", " there", ",", " friend", "end", "never")
    got = [parts async for parts in stream_parts(_response(body), _feed)]
    assert got == [[Part(text="Hello")], [Part(text=" there, friend")]]


async def test_an_error_comes_after_the_parts_before_it() -> None:
    body = _sse("a", "b", "c", "bad", "d")
    got: list[list[Part]] = []

    async def read() -> None:
        async for parts in stream_parts(_response(body), _feed):
            got.append(parts)

    with pytest.raises(StreamError, match="bad frame"):
        await read()
    assert got == [[Part(text="a")], [Part(text="bc")]]
