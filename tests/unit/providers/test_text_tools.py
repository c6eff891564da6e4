"""Text-based tool calling: think splitting, call extraction, request rewriting."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from hypothesis import given
from hypothesis import strategies as st

from gemtui.providers.base import Capabilities
from gemtui.providers.text_tools import CallExtractor, TextToolsGenerator, ThinkSplitter
from gemtui.wire import (
    Candidate,
    Content,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerateContentRequest,
    GenerateContentResponse,
    ModelInfo,
    Part,
    Tool,
)

CALL = '{"tool_call": {"name": "read_file", "arguments": {"file_path": "a.txt"}}}'


def _feed_chars(extractor: CallExtractor, text: str) -> list[str]:
    out = [extractor.feed(ch) for ch in text]
    out.append(extractor.flush())
    return out


def _split_all(text: str, size: int) -> list[tuple[bool, str]]:
    s = ThinkSplitter()
    pieces = [p for i in range(0, len(text), size) for p in s.feed(text[i : i + size])]
    pieces += s.flush()
    merged: list[tuple[bool, str]] = []
    for th, t in pieces:
        if merged and merged[-1][0] == th:
            merged[-1] = (th, merged[-1][1] + t)
        else:
            merged.append((th, t))
    return merged


def test_think_split_in_one_chunk_and_char_by_char() -> None:
    text = "<think>step one</think>The answer."
    expected = [(True, "step one"), (False, "The answer.")]
    assert _split_all(text, 1000) == expected
    assert _split_all(text, 1) == expected
    assert _split_all(text, 3) == expected


def test_think_tag_lookalikes_are_text() -> None:
    assert _split_all("a <thin b", 2) == [(False, "a <thin b")]


@given(st.integers(min_value=1, max_value=12))
def test_think_split_independent_of_chunking(size: int) -> None:
    text = "pre <think>a < b </thi</think> post <think>x</think>"
    assert _split_all(text, size) == [
        (False, "pre "),
        (True, "a < b </thi"),
        (False, " post "),
        (True, "x"),
    ]


def test_fenced_call_removed_prose_kept() -> None:
    ex = CallExtractor()
    text = f"Let me check.\n```json\n{CALL}\n```\nThen I will answer."
    visible = "".join(_feed_chars(ex, text))
    assert ex.calls == [("read_file", {"file_path": "a.txt"})]
    assert "tool_call" not in visible
    assert visible.startswith("Let me check.")
    assert visible.endswith("Then I will answer.")


def test_inline_calls_several_and_trailing_prose() -> None:
    ex = CallExtractor()
    second = CALL.replace("a.txt", "b.txt")
    visible = ex.feed(f"Reading {CALL} and {second} now.") + ex.flush()
    assert [c[1]["file_path"] for c in ex.calls] == ["a.txt", "b.txt"]
    assert visible == "Reading  and  now."


def test_deltas_stay_incremental() -> None:
    ex = CallExtractor()
    pieces = _feed_chars(ex, "Plain words { not a call } more")
    assert "".join(pieces) == "Plain words { not a call } more"
    assert sum(1 for p in pieces if p) > 10  # emitted as it came, not all at the end


def test_non_call_json_fence_passes_through() -> None:
    ex = CallExtractor()
    text = 'Config:\n```json\n{"a": 1}\n```\n'
    assert "".join(_feed_chars(ex, text)) == text
    assert ex.calls == []


def test_other_code_fences_are_not_held() -> None:
    ex = CallExtractor()
    assert ex.feed("```python\nprint(1)\n") == "```python\nprint(1)\n"


def test_preserve_context_keeps_the_json() -> None:
    ex = CallExtractor(preserve_context=True)
    assert CALL in ex.feed(f"x {CALL} y") + ex.flush()
    assert len(ex.calls) == 1


def test_unclosed_call_is_malformed_and_shown() -> None:
    ex = CallExtractor()
    text = '{"tool_call": {"name": "read_file", "arguments": {'
    assert ex.feed(text) == ""  # held while undecided
    assert ex.flush() == text
    assert ex.malformed
    assert not ex.calls


def test_string_arguments_and_tool_calls_list() -> None:
    ex = CallExtractor()
    body = {"tool_calls": [{"name": "glob", "arguments": json.dumps({"pattern": "*.py"})}]}
    ex.feed("```json\n" + json.dumps(body) + "\n```")
    ex.flush()
    assert ex.calls == [("glob", {"pattern": "*.py"})]


class FakeInner:
    name = "fake"
    capabilities = Capabilities()

    def __init__(self, chunks: list[GenerateContentResponse]) -> None:
        self.chunks = chunks
        self.requests: list[GenerateContentRequest] = []

    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        self.requests.append(request)
        for c in self.chunks:
            yield c

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        raise NotImplementedError

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        return 1

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        return []

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def aclose(self) -> None:
        pass


def _chunk(text: str, finish: str | None = None) -> GenerateContentResponse:
    cand = Candidate(content=Content(role="model", parts=[Part(text=text)]), finish_reason=finish)
    return GenerateContentResponse(candidates=[cand])


async def test_wrapper_rewrites_request_and_parses_stream() -> None:
    text = f"<think>plan</think>Sure.\n```json\n{CALL}\n```"
    chunks = [_chunk(text[i : i + 4]) for i in range(0, len(text), 4)] + [_chunk("", "STOP")]
    inner = FakeInner(chunks)
    gen = TextToolsGenerator(inner, no_think=True)
    decl = FunctionDeclaration(
        name="read_file",
        description="Read a file.",
        parameters_json_schema={
            "type": "object",
            "properties": {"file_path": {"type": "string", "description": "path"}},
            "required": ["file_path"],
        },
    )
    call = FunctionCall(id="c1", name="read_file", args={"file_path": "x"})
    request = GenerateContentRequest(
        contents=[
            Content.user("go"),
            Content(role="model", parts=[Part(text="ok"), Part(function_call=call)]),
            Content(
                role="user",
                parts=[
                    Part(
                        function_response=FunctionResponse(
                            id="c1", name="read_file", response={"output": "data"}
                        )
                    )
                ],
            ),
        ],
        system_instruction=Content(role="user", parts=[Part(text="Be brief.")]),
        tools=[Tool(function_declarations=[decl])],
    )
    out = [c async for c in gen.stream(request, model="qwen3")]
    sent = inner.requests[0]
    assert sent.tools is None
    system = "\n".join(p.text or "" for p in sent.system_instruction.parts)
    assert "Be brief." in system
    assert "**read_file**" in system
    assert '"file_path": string (required)' in system
    assert sent.contents[0].parts[0].text == "/no_think\n\ngo"
    assert '"tool_call"' in (sent.contents[1].parts[0].text or "")
    assert sent.contents[2].parts[0].text == "/no_think\n\nTool result for read_file (c1): data"
    parts = [
        p
        for c in out
        for p in (c.candidates[0].content.parts if c.candidates and c.candidates[0].content else [])
    ]
    thoughts = "".join(p.text or "" for p in parts if p.thought)
    visible = "".join(p.text or "" for p in parts if not p.thought and p.text)
    calls = [p.function_call for p in parts if p.function_call is not None]
    assert thoughts == "plan"
    assert visible.strip() == "Sure."
    assert len(calls) == 1
    assert calls[0].name == "read_file"
    assert (calls[0].id or "").startswith("text-call-1-")
    assert out[-1].candidates[0].finish_reason == "STOP"


async def test_wrapper_marks_malformed_call() -> None:
    inner = FakeInner([_chunk('{"tool_call": {"name": "x", "arguments": {"a": }}}', "STOP")])
    out = [
        c
        async for c in TextToolsGenerator(inner).stream(
            GenerateContentRequest(contents=[Content.user("u")]), model="m"
        )
    ]
    assert out[-1].candidates[0].finish_reason == "MALFORMED_FUNCTION_CALL"
