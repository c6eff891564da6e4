"""Compact tool guidance and the context window learned from local servers."""

from __future__ import annotations

import pytest

from gemtui.providers.context_probe import probe_context_window
from gemtui.providers.http import make_client
from gemtui.providers.text_tools import tool_guidance
from gemtui.providers.tool_guidance import (
    compact_declarations,
    compact_guidance,
    first_sentence,
    wants_compact,
)
from gemtui.testing import MockLLMServer
from gemtui.tools.registry import default_registry


def test_compact_guidance_is_one_line_per_tool_and_a_fifth_of_the_full_one() -> None:
    decls = default_registry().declarations()
    compact = compact_guidance(decls)
    assert len(compact) * 5 < len(tool_guidance(decls))
    tool_lines = [line for line in compact.splitlines() if line.startswith("- ")]
    assert len(tool_lines) == len(decls)
    read = next(line for line in tool_lines if line.startswith("- read_file("))
    assert read.startswith(
        "- read_file(file_path: string, start_line?: number, end_line?: number, "
        "offset?: number, limit?: number): "
    )
    assert (
        '{"tool_call": {"name": "read_file", "arguments": {"file_path": "README.md"}}}' in compact
    )
    assert "Tool result for" not in compact  # small models imitate it instead of calling
    assert '"name": "TOOL_NAME"' in compact_guidance([d for d in decls if d.name == "glob"])


def test_compact_declarations_keep_names_types_and_required() -> None:
    decls = default_registry().declarations()
    compact = compact_declarations(decls)
    for full, short in zip(decls, compact, strict=True):
        assert short.name == full.name
        assert short.description == first_sentence(full.description)
        schema = short.parameters_json_schema or short.parameters
        original = full.parameters_json_schema or full.parameters
        assert schema["required"] == original["required"]
        assert set(schema["properties"]) == set(original["properties"])
        assert not any("description" in p for p in schema["properties"].values())


def test_first_sentence() -> None:
    assert first_sentence("Reads a file. Then more.\n\nDetails.") == "Reads a file."
    assert (
        first_sentence("Finds files (e.g., `*.py`) fast. More.")
        == "Finds files (e.g., `*.py`) fast."
    )
    assert first_sentence("x" * 300, limit=20) == "x" * 19 + "…"


@pytest.mark.parametrize(
    ("mode", "window", "compact"),
    [
        ("auto", 8192, True),
        ("auto", 32_767, True),
        ("auto", 32_768, False),
        ("auto", 1_048_576, False),
        ("compact", 1_048_576, True),
        ("full", 4096, False),
    ],
)
def test_wants_compact(mode: str, window: int, compact: bool) -> None:
    assert wants_compact(mode, window) is compact


@pytest.mark.parametrize(
    ("kind", "expected"), [("llama.cpp", 8192), ("ollama", 4096), ("vllm", 16384), (None, None)]
)
async def test_context_window_from_each_local_server(
    kind: str | None, expected: int | None, mock_llm: MockLLMServer
) -> None:
    mock_llm.local_server.kind = kind
    mock_llm.local_server.context_window = expected or 1
    client = make_client(2.0)
    try:
        found = await probe_context_window(client, f"{mock_llm.url}/v1", "mock-model")
    finally:
        await client.aclose()
    assert found == expected
    paths = [r.path for r in mock_llm.requests]
    assert paths[0] == "/v1/models"
    if kind == "llama.cpp":
        assert paths[1:] == ["/props"]
    if kind == "ollama":
        assert paths[1:] == ["/props", "/api/show"]
        assert mock_llm.requests[-1].json == {"model": "mock-model"}


async def test_ollama_without_num_ctx_gives_the_trained_length(mock_llm: MockLLMServer) -> None:
    from gemtui.providers import context_probe

    show = {"parameters": 'stop "<|im_end|>"', "model_info": {"qwen2.context_length": 32768}}
    assert context_probe._from_show(show) == 32768
    assert context_probe._from_show({"parameters": "num_ctx 2048"}) == 2048
    assert context_probe._from_props({"default_generation_settings": {"n_ctx": "x"}}) is None


async def test_unreachable_server_is_quiet() -> None:
    client = make_client(1.0)
    try:
        assert await probe_context_window(client, "http://127.0.0.1:9/v1", "m") is None
    finally:
        await client.aclose()
