"""Tool calls a small local model cannot get wrong: every turn decoded under a grammar.

A 0.5B model asked a question only the workspace can answer tends to answer from
imagination, and when it does call, it writes JSON that does not parse or names a tool
that does not exist. Servers with grammar-constrained decoding (llama.cpp, vLLM's guided
decoding) turn a ``response_format`` JSON schema into a grammar. Here that schema is
built from the declared tools: one object ``{"name": <a declared tool>, "arguments":
<that tool's parameters>}``, so the turn always parses, names a real tool and carries
valid arguments. To leave answering possible, one more tool, ``final_answer``, is
declared, and its text becomes the model's answer again here: each turn is the one
decision "call this tool, or answer", made under the grammar, near-greedily. After tool
results the request also says to answer when they finish the request, and the grammar
leaves out the tools whose results just came (without both, the 0.5B read the same file
again and again); the note rides on the request and never enters the history. While a
request is not done, ``next_step`` narrows the choice further (no ``final_answer``
before a change asked for is made; a look inside a listed file before answering). The
tools stay declared too, so the model's chat template still describes them; the message
text, nothing but one call, becomes that call as any whole-text call does
(``WholeTextCalls``). Only a tool's required arguments are in the grammar: offered an
optional ``ignore``, the 0.5B filled it with ``["*"]`` and hid every file.

(``tool_choice: "required"`` looked like the way, but llama.cpp decodes it without the
grammar for Qwen2.5's template: the 0.5B wrote calls to read a file named "2 + 2".)

``[providers.NAME] constrained_tools``: ``on``, ``off``, or ``auto`` (the default): on
when the server says it is llama.cpp (``/props``) or vLLM (``max_model_len`` in
``/v1/models``) and the tools get the compact description (a window under 32k tokens,
which is where the small models are). Ollama has its own ``format`` and is left alone.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from gemtui.providers.next_step import next_step
from gemtui.wire import (
    FunctionDeclaration,
    GenerateContentRequest,
    GenerateContentResponse,
    GenerationConfig,
    Part,
    Tool,
)

__all__ = [
    "ANSWER_TOOL",
    "GRAMMAR_MAX_ITEMS",
    "call_schema",
    "constrain",
    "partial_answer",
    "server_constrains_tools",
    "unwrap_answer",
]

ANSWER_TOOL = "final_answer"
"""The extra tool whose ``text`` argument is the answer to the user."""

_ANSWER = FunctionDeclaration(
    name=ANSWER_TOOL,
    description=(
        "Reply to the user with text. Use it for anything that does not need the "
        "project's files, and once tool results hold the answer."
    ),
    parameters={
        "type": "object",
        "properties": {"text": {"type": "string"}},  # a description here got copied as the answer
        "required": ["text"],
    },
)
PROBE_TIMEOUT = 3.0
AFTER_RESULTS = (
    "If those results finish my request, reply with final_answer; if it still needs a "
    "change or another look, call the tool for that next step."
)
NOT_DONE = "My request is not done yet: call the tool for its next step."
"""The note instead of ``AFTER_RESULTS`` when ``final_answer`` is withheld (``next_step``)."""
DECISION_TEMPERATURE = 0.0
"""Unless the settings choose one: a server's own default (llama.cpp samples at 0.8)
turns a small model's one good call into a different invented path on each try."""


def _declarations(request: GenerateContentRequest) -> list[FunctionDeclaration]:
    return [d for tool in request.tools or [] for d in tool.function_declarations or []]


def constrain(request: GenerateContentRequest) -> GenerateContentRequest:
    """``request`` with ``final_answer`` added and its answer decoded under the calls'
    schema, when it offers tools (a request without tools, such as a summary or a
    JSON-mode check, is left alone)."""
    decls = _declarations(request)
    if not decls or any(d.name == ANSWER_TOOL for d in decls):
        return request
    tools = [Tool(function_declarations=[_ANSWER]), *(request.tools or [])]
    contents = request.contents
    allowed = [_ANSWER, *decls]
    step = next_step(contents, decls)
    if _after_results(request):
        last = contents[-1]
        nudge = Part(text=AFTER_RESULTS if step is None or step.answer else NOT_DONE)
        contents = [*contents[:-1], last.model_copy(update={"parts": [*last.parts, nudge]})]
        seen = {p.function_response.name for p in last.parts if p.function_response is not None}
        allowed = [_ANSWER, *([d for d in decls if d.name not in seen] or decls)]
    if step is not None:
        allowed = [_ANSWER, *step.tools] if step.answer else step.tools
    config = request.generation_config or GenerationConfig()
    update: dict[str, Any] = {
        "response_json_schema": call_schema(allowed),
        "response_schema": None,
    }
    if config.temperature is None:
        update["temperature"] = DECISION_TEMPERATURE
    config = config.model_copy(update=update)
    return request.model_copy(
        update={"tools": tools, "generation_config": config, "contents": contents}
    )


def _after_results(request: GenerateContentRequest) -> bool:
    """Whether the turn answers tool results (and gets the note to answer when they do)."""
    last = request.contents[-1] if request.contents else None
    return last is not None and any(p.function_response is not None for p in last.parts)


def call_schema(decls: list[FunctionDeclaration]) -> dict[str, Any]:
    """One call to one of ``decls``: ``{"name": …, "arguments": …}`` with that tool's
    required parameters (in the subset of JSON Schema every grammar converter takes)."""
    return {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": [d.name]},
                    "arguments": _required_only(
                        _plain(d.parameters_json_schema or d.parameters or {})
                    ),
                },
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
            for d in decls
        ]
    }


def _required_only(schema: dict[str, Any]) -> dict[str, Any]:
    """The arguments a call must give, and only those: a small model fills every optional
    one it is offered (``ignore: ["*"]`` on a listing hid every file), so the grammar
    leaves them out; the tools' defaults apply."""
    required = schema.get("required")
    props = schema.get("properties")
    if not required or not isinstance(props, dict):
        return schema
    return {**schema, "properties": {k: v for k, v in props.items() if k in required}}


_KEEP = ("type", "enum", "required", "items", "properties", "anyOf")
GRAMMAR_MAX_ITEMS = 64
"""The most items a list argument may take under the grammar: without a bound a model
can repeat items until its output runs out. (Strings are left unbounded in the schema:
llama.cpp spells ``maxLength`` out as that many nested rules; their repetition is the
stream loop check's to cut, and their length the request's ``max_tokens``.)"""


def _plain(schema: Any) -> dict[str, Any]:
    """``schema`` cut to types, enums, required, items and properties (lower-case types,
    no extra properties): patterns, formats and bounds a converter may not know go."""
    if not isinstance(schema, dict):
        return {}
    out: dict[str, Any] = {}
    for key in _KEEP:
        if key not in schema:
            continue
        value = schema[key]
        if key == "type":
            out[key] = (
                [str(v).lower() for v in value] if isinstance(value, list) else (str(value).lower())
            )
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _plain(sub) for name, sub in value.items()}
        elif key == "items":
            out[key] = _plain(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [_plain(v) for v in value]
        else:
            out[key] = value
    if out.get("type") == "array" or "items" in out:
        given = schema.get("maxItems")
        fits = isinstance(given, int) and 0 <= given <= GRAMMAR_MAX_ITEMS
        out["maxItems"] = given if fits else GRAMMAR_MAX_ITEMS
    if out.get("type") == "object" or "properties" in out:
        out.setdefault("type", "object")
        out.setdefault("properties", {})
        out["additionalProperties"] = False
    return out


def unwrap_answer(response: GenerateContentResponse) -> GenerateContentResponse:
    """``response`` with each ``final_answer`` call turned back into answer text (and one
    the output bound cut, left as unparsed JSON, into the text it got to)."""
    for candidate in response.candidates or []:
        if candidate.content is None:
            continue
        cut = candidate.finish_reason == "MAX_TOKENS"
        parts: list[Part] = []
        for part in candidate.content.parts:
            call = part.function_call
            if call is not None and call.name == ANSWER_TOOL:
                parts.append(Part(text=_answer_text(call.args)))
            elif cut and part.text and not part.thought:
                parts.append(Part(text=partial_answer(part.text)))
            else:
                parts.append(part)
        candidate.content.parts = parts
    return response


_ANSWER_START = re.compile(
    r'\s*\{\s*"name"\s*:\s*"final_answer"\s*,\s*"arguments"\s*:\s*\{\s*"text"\s*:\s*"'
)


def partial_answer(text: str) -> str:
    """The answer inside a ``final_answer`` call cut short (``{"name": "final_answer",
    "arguments": {"text": "The sea is``), as far as it got; other text as it is."""
    start = _ANSWER_START.match(text)
    if start is None:
        return text
    rest = text[start.end() :]
    for end in range(len(rest), max(-1, len(rest) - 7), -1):  # an escape may be cut too
        try:
            decoded = json.loads(f'"{rest[:end]}"')
        except ValueError:
            continue
        if isinstance(decoded, str):
            return decoded
    return text


def _answer_text(args: dict[str, Any]) -> str:
    text = args.get("text")
    if isinstance(text, str):
        return text
    # a server without the grammar may still name the tool with other arguments
    return "\n".join(str(v) for v in args.values())


async def server_constrains_tools(
    client: httpx.AsyncClient, base_url: str, headers: dict[str, str] | None = None
) -> bool:
    """Whether the server at ``base_url`` (with ``/v1``) decodes ``tool_choice:
    "required"`` under a grammar: llama.cpp (it has ``/props``) or vLLM (its model list
    carries ``max_model_len``). Every failure is a quiet no."""
    base = base_url.rstrip("/")
    root = base.removesuffix("/v1")
    props = await _get(client, f"{root}/props", headers)
    if isinstance(props, dict) and (
        "default_generation_settings" in props or "chat_template" in props
    ):
        return True
    models = await _get(client, f"{base}/models", headers)
    items = models.get("data") if isinstance(models, dict) else None
    return isinstance(items, list) and any(
        isinstance(m, dict) and "max_model_len" in m for m in items
    )


async def _get(client: httpx.AsyncClient, url: str, headers: dict[str, str] | None) -> Any:
    try:
        response = await client.get(url, headers=headers or {}, timeout=PROBE_TIMEOUT)
        return response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
