"""The grammar request for small local models: what it allows and what it leaves alone."""

from __future__ import annotations

from gemtui.providers.constrained_tools import (
    ANSWER_TOOL,
    GRAMMAR_MAX_ITEMS,
    call_schema,
    constrain,
    unwrap_answer,
)
from gemtui.wire import (
    Candidate,
    Content,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerateContentRequest,
    GenerateContentResponse,
    GenerationConfig,
    Part,
    Tool,
)

GREP = FunctionDeclaration(
    name="grep_search",
    description="Search.",
    parameters={
        "type": "OBJECT",
        "properties": {
            "pattern": {"type": "STRING", "pattern": "^.+$", "minLength": 1},
            "include": {"type": "STRING"},
        },
        "required": ["pattern"],
    },
)


def _request(*contents: Content, **config: object) -> GenerateContentRequest:
    return GenerateContentRequest(
        contents=list(contents) or [Content(role="user", parts=[Part(text="find x")])],
        tools=[Tool(function_declarations=[GREP])],
        generation_config=GenerationConfig(**config) if config else None,
    )


def test_the_schema_names_each_tool_once_with_required_arguments_in_plain_json_schema() -> None:
    schema = call_schema([GREP])
    (only,) = schema["anyOf"]
    assert only["properties"]["name"] == {"type": "string", "enum": ["grep_search"]}
    assert only["properties"]["arguments"] == {
        "type": "object",
        "properties": {"pattern": {"type": "string"}},  # no pattern/minLength, no include
        "required": ["pattern"],
        "additionalProperties": False,
    }


def test_a_settings_temperature_wins_and_a_request_without_tools_is_untouched() -> None:
    constrained = constrain(_request(temperature=0.7))
    assert constrained.generation_config is not None
    assert constrained.generation_config.temperature == 0.7
    assert constrained.generation_config.response_json_schema is not None
    bare = GenerateContentRequest(contents=[Content(role="user", parts=[Part(text="sum")])])
    assert constrain(bare) is bare


def test_after_results_the_nudge_rides_on_the_request_only() -> None:
    results = Content(
        role="user",
        parts=[Part(function_response=FunctionResponse(name="grep_search", response={"o": 1}))],
    )
    request = _request(Content(role="user", parts=[Part(text="find x")]), results)
    constrained = constrain(request)
    assert len(constrained.contents[-1].parts) == 2
    assert ANSWER_TOOL in (constrained.contents[-1].parts[-1].text or "")
    assert len(request.contents[-1].parts) == 1  # the history itself is not changed


def test_final_answer_becomes_text_and_other_calls_stay() -> None:
    calls = [
        Part(function_call=FunctionCall(name=ANSWER_TOOL, args={"text": "Done."})),
        Part(function_call=FunctionCall(name="grep_search", args={"pattern": "x"})),
    ]
    response = GenerateContentResponse(
        candidates=[Candidate(content=Content(role="model", parts=calls))]
    )
    parts = unwrap_answer(response).candidates[0].content.parts  # type: ignore[index,union-attr]
    assert parts[0].text == "Done."
    assert parts[1].function_call is not None
    assert parts[1].function_call.name == "grep_search"


def test_list_arguments_are_bounded_under_the_grammar() -> None:
    """Without maxItems a model may repeat list items until its output runs out."""
    decl = FunctionDeclaration(
        name="read_many",
        description="d",
        parameters={
            "type": "object",
            "properties": {
                "paths": {"type": "array", "items": {"type": "string"}},
                "few": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            },
            "required": ["paths", "few"],
        },
    )
    [call] = call_schema([decl])["anyOf"]
    props = call["properties"]["arguments"]["properties"]
    assert props["paths"]["maxItems"] == GRAMMAR_MAX_ITEMS
    assert props["few"]["maxItems"] == 3  # a tighter bound of the tool's own is kept
