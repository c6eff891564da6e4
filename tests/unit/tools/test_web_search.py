"""google_web_search's citation markers: UTF-8 byte offsets, never splitting a character."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gemtui.tools.base import ToolContext, ToolError
from gemtui.tools.builtin.web_search import (
    GoogleWebSearchTool,
    collect_answer,
    format_sources,
    insert_citations,
)
from gemtui.tools.workspace import Workspace
from gemtui.wire import (
    GenerateContentRequest,
    GenerateContentResponse,
    GroundingChunk,
    GroundingSupport,
)


def b(text: str) -> int:
    """The UTF-8 byte length of ``text``: where a segment ending after it ends."""
    return len(text.encode("utf-8"))


def support(end: int | None, *indices: int, start: int | None = None) -> GroundingSupport:
    seg: dict[str, Any] = {}
    if start is not None:
        seg["startIndex"] = start
    if end is not None:
        seg["endIndex"] = end
    return GroundingSupport.model_validate({"segment": seg, "groundingChunkIndices": list(indices)})


def chunks(*pairs: tuple[str | None, str | None]) -> list[GroundingChunk]:
    out = []
    for title, uri in pairs:
        web = {k: v for k, v in (("title", title), ("uri", uri)) if v is not None}
        out.append(GroundingChunk.model_validate({"web": web}))
    return out


class TestInsertCitations:
    def test_chinese_segments_end_at_their_byte_offsets(self) -> None:
        first, second = "今天北京天气晴朗", "，最高温度25度"
        text = first + second + "，适合户外活动。"
        marked = insert_citations(
            text,
            [support(b(first), 0, start=0), support(b(first + second), 1, start=b(first) + 3)],
        )
        assert marked == "今天北京天气晴朗[1]，最高温度25度[2]，适合户外活动。"
        # read as a character offset, 8 would be after 朗; as bytes it is inside 北 (bytes
        # 6-8), so the marker goes after that character, not into it
        assert (
            insert_citations(text, [support(8, 0)])
            == "今天北[1]京天气晴朗，最高温度25度，适合户外活动。"
        )

    def test_an_offset_inside_a_character_moves_to_its_end(self) -> None:
        text = "北京天气"
        for inside in (b("北") + 1, b("北") + 2):
            assert insert_citations(text, [support(inside, 0)]) == "北京[1]天气"

    def test_an_emoji_zwj_sequence_is_never_split(self) -> None:
        family = "👨\u200d👩\u200d👧"
        text = f"Trip {family} planned. Next"
        inside = b("Trip 👨\u200d")  # between two code points of the sequence
        marked = insert_citations(text, [support(inside, 0), support(b(text) - 5, 1)])
        assert marked == f"Trip {family}[1] planned.[2] Next"
        assert family in marked

    def test_mixed_text_with_combining_marks_and_flags(self) -> None:
        text = "Cafe\u0301 naïve 日本語 🇯🇵 ok"
        # just after "e", before its combining accent; then between the two regional
        # indicator letters of the flag
        marked = insert_citations(
            text, [support(b("Cafe"), 0), support(b("Cafe\u0301 naïve 日本語 🇯"), 1)]
        )
        assert marked == "Cafe\u0301[1] naïve 日本語 🇯🇵[2] ok"
        marked.encode("utf-8")  # still valid text

    def test_missing_start_index_is_zero_and_several_sources_stack(self) -> None:
        text = "Python 3.13 adds a JIT. 🚀 Fast."
        marked = insert_citations(
            text, [support(b("Python 3.13 adds a JIT."), 1, 2), support(b(text), 0)]
        )
        assert marked == "Python 3.13 adds a JIT.[2][3] 🚀 Fast.[1]"

    def test_markers_at_one_offset_keep_the_supports_order(self) -> None:
        text = "abc def"
        marked = insert_citations(text, [support(3, 1), support(3, 0)])
        assert marked == "abc[2][1] def"

    def test_bad_supports_add_nothing_and_out_of_range_is_clamped(self) -> None:
        text = "日本"
        bad = [
            support(b("日"), start=0),  # no source
            GroundingSupport.model_validate({"groundingChunkIndices": [0]}),  # no segment
            support(b("日"), 0, start=b("日本")),  # ends before it starts
            support(b("日"), 5),  # no such source
        ]
        assert insert_citations(text, bad, source_count=2) == text
        assert insert_citations(text, [support(999, 0), support(None, 1)], 2) == "[2]日本[1]"

    def test_plain_ascii_matches_character_offsets(self) -> None:
        text = "The sky is blue. Grass is green."
        assert (
            insert_citations(text, [support(16, 0), support(32, 0, 1)])
            == "The sky is blue.[1] Grass is green.[1][2]"
        )


def response(*parts: dict[str, Any], grounding: dict[str, Any] | None = None) -> Any:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if grounding is not None:
        cand["groundingMetadata"] = grounding
    return GenerateContentResponse.model_validate({"candidates": [cand]})


class TestStreamedAnswer:
    def test_supports_point_across_chunks_and_thoughts_do_not_count(self) -> None:
        grounding = {
            "groundingChunks": [
                {"web": {"uri": "https://weather.example/bj", "title": "天气网"}},
                {"web": {"uri": "https://cma.example"}},
                {},
            ],
            "groundingSupports": [
                {"segment": {"endIndex": b("今天北京晴")}, "groundingChunkIndices": [0]},
                {
                    "segment": {
                        "startIndex": b("今天北京晴，"),
                        "endIndex": b("今天北京晴，25度 ☀️"),
                    },
                    "groundingChunkIndices": [1, 2],
                },
            ],
        }
        stream = [
            response({"text": "Let me think about 天气…", "thought": True}, grounding={}),
            response({"text": "今天北"}, grounding={}),
            response({"text": "京晴，25"}, grounding={}),
            response({"text": "plan", "thought": True}),
            response({"text": "度 ☀️。"}),
            response({"text": ""}, grounding=grounding),
        ]
        text, meta = collect_answer(stream)
        assert text == "今天北京晴，25度 ☀️。"
        assert meta is not None
        assert meta.grounding_chunks is not None
        marked = insert_citations(text, meta.grounding_supports or [], len(meta.grounding_chunks))
        assert marked == "今天北京晴[1]，25度 ☀️[2][3]。"
        assert format_sources(meta.grounding_chunks) == [
            "[1] 天气网 (https://weather.example/bj)",
            "[2] Untitled (https://cma.example)",
            "[3] Untitled (No URI)",
        ]

    def test_sources_name_missing_titles_and_uris(self) -> None:
        assert format_sources(chunks(("A", None), (None, "https://b"), (None, None))) == [
            "[1] A (No URI)",
            "[2] Untitled (https://b)",
            "[3] Untitled (No URI)",
        ]


class TestInvocation:
    async def test_result_has_header_markers_sources_and_a_display(self, tmp_path: Path) -> None:
        asked: list[GenerateContentRequest] = []

        def model_stream(request: GenerateContentRequest) -> AsyncIterator[Any]:
            asked.append(request)

            async def gen() -> AsyncIterator[Any]:
                yield response({"text": "Rust 1.80 "})
                yield response(
                    {"text": "stabilised LazyLock."},
                    grounding={
                        "groundingChunks": [{"web": {"title": "Rust blog", "uri": "https://r"}}],
                        "groundingSupports": [
                            {"segment": {"endIndex": 30}, "groundingChunkIndices": [0]}
                        ],
                    },
                )

            return gen()

        tool = GoogleWebSearchTool()
        assert tool.validate({"query": "  "}) == "The 'query' parameter cannot be empty."
        assert tool.validate({}) is not None
        ctx = ToolContext(workspace=Workspace(tmp_path), model_stream=model_stream)
        result = await tool.build({"query": "rust 1.80"}).execute(ctx)
        assert result.llm_content == (
            'Web search results for "rust 1.80":\n\n'
            "Rust 1.80 stabilised LazyLock.[1]\n\nSources:\n[1] Rust blog (https://r)"
        )
        assert result.display.splitlines() == [
            'Search results for "rust 1.80" returned.',
            "[1] Rust blog (https://r)",
        ]
        assert result.data["sources"] == [{"title": "Rust blog", "uri": "https://r"}]
        wire = asked[0].to_wire()
        assert wire["tools"] == [{"googleSearch": {}}]
        assert wire["contents"] == [{"role": "user", "parts": [{"text": "rust 1.80"}]}]

    async def test_no_model_or_empty_answer(self, tmp_path: Path) -> None:
        tool = GoogleWebSearchTool()
        with pytest.raises(ToolError, match="not available"):
            await tool.build({"query": "x"}).execute(ToolContext(workspace=Workspace(tmp_path)))

        def empty(request: GenerateContentRequest) -> AsyncIterator[Any]:
            async def gen() -> AsyncIterator[Any]:
                yield response({"text": ""})

            return gen()

        ctx = ToolContext(workspace=Workspace(tmp_path), model_stream=empty)
        result = await tool.build({"query": "x"}).execute(ctx)
        assert result.llm_content == 'No search results or information found for query: "x"'
