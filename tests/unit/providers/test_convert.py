"""Pure request/response mapping for the OpenAI-compatible and Anthropic adapters."""

from __future__ import annotations

import pytest

from gemtui.errors import ApiError, RetryableApiError, api_error_from_response
from gemtui.providers.convert_anthropic import (
    AnthropicStream,
    to_anthropic_messages,
    to_anthropic_request,
)
from gemtui.providers.convert_openai import (
    OpenAIStream,
    from_openai_completion,
    normalize_schema,
    to_openai_request,
)
from gemtui.wire import (
    Blob,
    Content,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerateContentRequest,
    GenerationConfig,
    Part,
    Tool,
)


def _call(cid: str | None, name: str = "read_file", **args: object) -> Part:
    return Part(function_call=FunctionCall(id=cid, name=name, args=dict(args)))


def _result(cid: str | None, name: str = "read_file", **response: object) -> Part:
    return Part(function_response=FunctionResponse(id=cid, name=name, response=dict(response)))


HISTORY = [
    Content(
        role="user",
        parts=[Part(text="look"), Part(inline_data=Blob(mime_type="image/png", data="AAA="))],
    ),
    Content(
        role="model",
        parts=[
            Part(text="thinking", thought=True),
            Part(text="Sure."),
            _call("c1", file_path="a"),
            _call("c2", file_path="b"),
        ],
    ),
    Content(role="user", parts=[_result("c1", output="A"), _result("c2", error="no such file")]),
]


def test_schema_types_lowered_recursively() -> None:
    schema = {
        "type": "OBJECT",
        "properties": {
            "type": {"type": "STRING"},
            "xs": {"type": "ARRAY", "items": {"type": "INTEGER"}},
        },
    }
    assert normalize_schema(schema) == {
        "type": "object",
        "properties": {
            "type": {"type": "string"},
            "xs": {"type": "array", "items": {"type": "integer"}},
        },
    }


def test_openai_request_mapping() -> None:
    decl = FunctionDeclaration(
        name="read_file", description="d", parameters={"type": "OBJECT", "properties": {}}
    )
    req = GenerateContentRequest(
        contents=HISTORY,
        system_instruction=Content(role="user", parts=[Part(text="sys")]),
        tools=[Tool(function_declarations=[decl])],
        generation_config=GenerationConfig(temperature=0.2, top_p=0.9, max_output_tokens=100),
    )
    body = to_openai_request(req, "m")
    msgs = body["messages"]
    assert msgs[0] == {"role": "system", "content": "sys"}
    assert msgs[1]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,AAA="},
    }
    assert msgs[2]["role"] == "assistant"
    assert msgs[2]["content"] == "Sure."
    assert [tc["id"] for tc in msgs[2]["tool_calls"]] == ["c1", "c2"]
    assert msgs[2]["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": '{"file_path": "a"}',
    }
    assert msgs[3:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: no such file"},
    ]
    assert body["tools"][0]["function"]["parameters"] == {"type": "object", "properties": {}}
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.2, 0.9, 100)
    assert body["stream_options"] == {"include_usage": True}


def test_openai_calls_without_ids_get_matching_ones() -> None:
    contents = [
        Content.user("u"),
        Content(role="model", parts=[_call(None)]),
        Content(role="user", parts=[_result(None)]),
    ]
    msgs = to_openai_request(GenerateContentRequest(contents=contents), "m")["messages"]
    assert msgs[1]["tool_calls"][0]["id"] == msgs[2]["tool_call_id"]


def test_openai_stream_reassembles_interleaved_calls() -> None:
    s = OpenAIStream()
    parts = s.feed({"choices": [{"delta": {"reasoning_content": "hmm"}}]})
    parts += s.feed({"choices": [{"delta": {"content": "<thi"}}]})
    parts += s.feed({"choices": [{"delta": {"content": "nk>deep</think>Hi"}}]})
    s.feed(
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x"'}}
                        ]
                    }
                }
            ]
        }
    )
    s.feed(
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 1, "id": "b", "function": {"name": "g", "arguments": ""}}
                        ]
                    }
                }
            ]
        }
    )
    s.feed(
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}]}
    )
    s.feed({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    s.feed(
        {
            "choices": [],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 8,
                "total_tokens": 18,
                "completion_tokens_details": {"reasoning_tokens": 3},
            },
        }
    )
    assert [(p.thought, p.text) for p in parts] == [(True, "hmm"), (True, "deep"), (None, "Hi")]
    final = s.final()
    cand = final.candidates[0]
    calls = [p.function_call for p in cand.content.parts if p.function_call is not None]
    assert [(c.id, c.name, c.args) for c in calls] == [("a", "f", {"x": 1}), ("b", "g", {})]
    assert cand.finish_reason == "STOP"
    u = final.usage_metadata
    assert u
    assert (
        u.prompt_token_count,
        u.candidates_token_count,
        u.thoughts_token_count,
        u.total_token_count,
    ) == (10, 5, 3, 18)


@pytest.mark.parametrize(
    ("reason", "mapped"),
    [("stop", "STOP"), ("length", "MAX_TOKENS"), ("content_filter", "SAFETY"), ("weird", "OTHER")],
)
def test_openai_finish_mapping(reason: str, mapped: str) -> None:
    s = OpenAIStream()
    s.feed({"choices": [{"delta": {"content": "x"}, "finish_reason": reason}]})
    assert s.final().candidates[0].finish_reason == mapped


def test_openai_invalid_arguments_are_malformed() -> None:
    s = OpenAIStream()
    s.feed(
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "a", "function": {"name": "f", "arguments": "{oops"}}
                        ]
                    },
                    "finish_reason": "tool_calls",
                }
            ]
        }
    )
    cand = s.final().candidates[0]
    assert cand.finish_reason == "MALFORMED_FUNCTION_CALL"
    assert not any(p.function_call for p in cand.content.parts)


def test_openai_non_streaming_completion() -> None:
    data = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": "ok",
                    "tool_calls": [
                        {
                            "id": "t",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
    }
    parts = from_openai_completion(data).candidates[0].content.parts
    assert parts[0].text == "ok"
    assert parts[1].function_call.name == "f"


def test_anthropic_messages_alternate_and_results_lead() -> None:
    thinking = [
        Part(text="plan ", thought=True),
        Part(text="more", thought=True),
        Part(text="", thought=True, thought_signature="SIG"),
    ]
    contents = [
        Content.user("a"),
        Content.user("b"),
        Content(role="model", parts=[*thinking, _call("c.1", file_path="x")]),
        Content(role="user", parts=[_result("c.1", error="boom")]),
        Content.user("and then?"),
    ]
    msgs = to_anthropic_messages(contents)
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert [b["text"] for b in msgs[0]["content"]] == ["a", "b"]
    assert msgs[1]["content"][0] == {
        "type": "thinking",
        "thinking": "plan more",
        "signature": "SIG",
    }
    use = msgs[1]["content"][1]
    assert use == {
        "type": "tool_use",
        "id": "c_1",
        "name": "read_file",
        "input": {"file_path": "x"},
    }
    assert msgs[2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "c_1",
        "content": "Error: boom",
        "is_error": True,
    }
    assert msgs[2]["content"][1] == {"type": "text", "text": "and then?"}


def test_anthropic_request_fields() -> None:
    decl = FunctionDeclaration(
        name="f", description="d", parameters_json_schema={"type": "object", "properties": {}}
    )
    req = GenerateContentRequest(
        contents=[Content.user("hi")],
        system_instruction=Content(role="user", parts=[Part(text="sys")]),
        tools=[Tool(function_declarations=[decl])],
    )
    body = to_anthropic_request(req, "claude")
    assert body["system"] == "sys"
    assert body["max_tokens"] == 8192
    assert body["stream"] is True
    assert body["tools"] == [
        {"name": "f", "description": "d", "input_schema": {"type": "object", "properties": {}}}
    ]
    req.generation_config = GenerationConfig(max_output_tokens=50)
    assert to_anthropic_request(req, "claude")["max_tokens"] == 50


def test_anthropic_stream_events() -> None:
    s = AnthropicStream()
    s.feed(
        {
            "type": "message_start",
            "message": {
                "usage": {"input_tokens": 10, "cache_read_input_tokens": 4, "output_tokens": 1}
            },
        }
    )
    s.feed(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": ""},
        }
    )
    parts = s.feed(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "hm"},
        }
    )
    parts += s.feed(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": ""},
        }
    )
    parts += s.feed(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "S"},
        }
    )
    s.feed(
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        }
    )
    for frag in ("", '{"a":', " 2}"):
        s.feed(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": frag},
            }
        )
    s.feed({"type": "content_block_stop", "index": 1})
    s.feed({"type": "ping"})
    s.feed(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9},
        }
    )
    assert [(p.text, p.thought_signature) for p in parts] == [("hm", None), ("", "S")]
    final = s.final()
    cand = final.candidates[0]
    assert cand.finish_reason == "STOP"
    assert cand.content.parts[0].function_call.args == {"a": 2}
    u = final.usage_metadata
    assert u
    assert (
        u.prompt_token_count,
        u.cached_content_token_count,
        u.candidates_token_count,
        u.total_token_count,
    ) == (14, 4, 9, 23)


@pytest.mark.parametrize(
    ("etype", "cls", "status"),
    [("overloaded_error", RetryableApiError, 529), ("invalid_request_error", ApiError, 400)],
)
def test_anthropic_error_event_raises_mapped_error(
    etype: str, cls: type[ApiError], status: int
) -> None:
    with pytest.raises(cls) as info:
        AnthropicStream().feed(
            {"type": "error", "error": {"type": etype, "message": "Overloaded now"}}
        )
    assert info.value.status == status
    assert info.value.message == "Overloaded now"


def test_error_bodies_of_both_apis_give_the_message() -> None:
    openai = b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}'
    anthropic = (
        b'{"type": "error", "error": {"type": "rate_limit_error", "message": "Too many requests"}}'
    )
    assert api_error_from_response(401, openai).message == "Incorrect API key provided"
    err = api_error_from_response(429, anthropic, {"retry-after": "3"})
    assert isinstance(err, RetryableApiError)
    assert err.message == "Too many requests"
    assert err.server_delay == 3


def test_a_json_schema_asks_an_openai_server_for_that_schema() -> None:
    """``responseJsonSchema`` (what the router sends) becomes ``response_format``, and
    the Gemini request carries it under that name, not as ``responseSchema``."""
    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    request = GenerateContentRequest(
        contents=[Content.user("hi")],
        generation_config=GenerationConfig(
            response_mime_type="application/json", response_json_schema=schema
        ),
    )
    body = to_openai_request(request, "m", stream=False)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": schema},
    }
    wire = request.to_wire()["generationConfig"]
    assert wire == {"responseMimeType": "application/json", "responseJsonSchema": schema}
