"""Wire types serialise exactly like the Gemini REST API and tolerate unknown fields."""

from __future__ import annotations

import json

from gemtui.wire import (
    Content,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    GenerateContentResponse,
    GenerationConfig,
    Part,
    Tool,
    append_text,
    function_calls,
    part_to_display,
    response_text,
)

SEED_REQUEST = {
    "contents": [{"role": "user", "parts": [{"text": "今天北京的天气怎么样？"}]}],
    "tools": [{"googleSearch": {}}],
    "generationConfig": {"temperature": 0, "topP": 1},
    "systemInstruction": {"parts": [{"text": "You are a helpful assistant..."}]},
}

SEED_TOOL_TURN = {
    "contents": [
        {"role": "user", "parts": [{"text": "搜索包含 'gemini' 的 TypeScript 文件"}]},
        {
            "role": "model",
            "parts": [
                {
                    "functionCall": {
                        "id": "toolu_search_files_1761124234364",
                        "name": "search_files",
                        "args": {"path": ".", "file_pattern": "*.ts", "regex": "gemini.*search"},
                    }
                }
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "toolu_search_files_1761124234364",
                        "name": "search_files",
                        "response": {"output": "Found 1 result."},
                    }
                }
            ],
        },
    ],
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "search_files",
                    "description": "Search for files matching a pattern",
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": "string"}},
                        "required": ["path"],
                    },
                }
            ]
        }
    ],
}

SEED_RESPONSE = {
    "candidates": [
        {
            "content": {"parts": [{"text": "今天北京天气晴朗"}], "role": "model"},
            "finishReason": "STOP",
            "groundingMetadata": {
                "groundingChunks": [
                    {"web": {"uri": "https://weather.com.cn/beijing", "title": "t"}}
                ],
                "groundingSupports": [
                    {
                        "segment": {"startIndex": 0, "endIndex": 12, "text": "今天北京天气晴朗"},
                        "groundingChunkIndices": [0],
                        "confidenceScores": [0.95],
                    }
                ],
            },
            "safetyRatings": [
                {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}
            ],
        }
    ],
    "usageMetadata": {"promptTokenCount": 15, "candidatesTokenCount": 28, "totalTokenCount": 43},
}


def test_request_round_trips_to_the_seed_json() -> None:
    req = GenerateContentRequest.model_validate(SEED_REQUEST)
    assert req.to_wire() == SEED_REQUEST


def test_tool_turn_round_trips_with_ids_and_camel_case() -> None:
    req = GenerateContentRequest.model_validate(SEED_TOOL_TURN)
    assert req.to_wire() == SEED_TOOL_TURN
    call = req.contents[1].parts[0].function_call
    assert call is not None
    assert call.id == "toolu_search_files_1761124234364"


def test_response_round_trips_and_helpers_read_it() -> None:
    resp = GenerateContentResponse.model_validate(SEED_RESPONSE)
    assert resp.to_wire() == SEED_RESPONSE
    assert response_text(resp) == "今天北京天气晴朗"
    support = resp.candidates[0].grounding_metadata.grounding_supports[0]  # type: ignore[index,union-attr]
    assert support.segment is not None
    assert support.segment.end_index == 12


def test_unknown_fields_are_kept_not_rejected() -> None:
    data = json.loads(json.dumps(SEED_RESPONSE))
    data["usageMetadata"]["serviceTier"] = "standard"
    data["candidates"][0]["newField"] = {"x": 1}
    data["brandNew"] = True
    resp = GenerateContentResponse.model_validate(data)
    assert resp.to_wire() == data


def test_built_types_serialise_camel_case_and_omit_unset() -> None:
    req = GenerateContentRequest(
        contents=[
            Content(
                role="model",
                parts=[
                    Part(
                        function_call=FunctionCall(
                            id="c1", name="read_file", args={"file_path": "a"}
                        ),
                        thought_signature="c2lnbmF0dXJlPT0=",
                    )
                ],
            ),
            Content(
                role="user",
                parts=[
                    Part(
                        function_response=FunctionResponse(
                            id="c1", name="read_file", response={"error": "no"}
                        )
                    )
                ],
            ),
        ],
        generation_config=GenerationConfig(max_output_tokens=10),
        tools=[Tool(google_search={})],
    )
    assert req.to_wire() == {
        "contents": [
            {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {
                            "id": "c1",
                            "name": "read_file",
                            "args": {"file_path": "a"},
                        },
                        "thoughtSignature": "c2lnbmF0dXJlPT0=",
                    }
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": "read_file",
                            "response": {"error": "no"},
                        }
                    }
                ],
            },
        ],
        "generationConfig": {"maxOutputTokens": 10},
        "tools": [{"googleSearch": {}}],
    }


def test_thought_signature_is_kept_byte_for_byte() -> None:
    sig = "ab+/cd-_==\u2028"
    part = Part.model_validate({"text": "x", "thoughtSignature": sig})
    assert part.to_wire()["thoughtSignature"] == sig


def test_part_helpers() -> None:
    parts: list[Part] = [Part(text="a")]
    append_text(parts, "b")
    assert [p.text for p in parts] == ["ab"]
    parts.append(Part(function_call=FunctionCall(name="f", args={"a": 1})))
    append_text(parts, "c")
    assert parts[-1].text == "c"
    assert part_to_display(parts[1]) == '[function call: f({"a": 1})]'
    assert part_to_display(Part(text="t", thought=True)) == "[thought: t]"
    resp = GenerateContentResponse.model_validate(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": "hm", "thought": True},
                            {"text": "hi"},
                            {"functionCall": {"name": "g", "args": {}}},
                        ],
                    }
                }
            ]
        }
    )
    assert response_text(resp) == "hi"
    assert response_text(resp, thoughts=True) == "hm"
    assert [c.name for c in function_calls(resp)] == ["g"]
    assert response_text(GenerateContentResponse()) == ""
