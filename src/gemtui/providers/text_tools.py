"""Text-based tool calling for models without native function calling.

The wrapper describes the tools in the system instruction, sends no ``tools`` to the
inner generator, and parses tool calls back out of the streamed text in every format
local models write them (``tool_call_text``). ``<think>…</think>`` becomes thought parts.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

from msgspec.structs import replace

from gemtui.providers.base import ContentGenerator
from gemtui.providers.model_family import (
    no_think_switch,
    opens_thought_in_prompt,
    with_no_think,
)
from gemtui.providers.think_tags import ThinkSplitter
from gemtui.providers.tool_call_text import CallExtractor
from gemtui.providers.tool_guidance import compact_guidance
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
    UsageMetadata,
)

__all__ = [
    "CallExtractor",
    "TextToolsGenerator",
    "ThinkSplitter",
    "function_response_text",
    "render_call",
    "tool_guidance",
]

# -- rendering tools and history as text -----------------------------------------------


def _schema_of(decl: FunctionDeclaration) -> dict[str, Any]:
    return decl.parameters_json_schema or decl.parameters or {}


def tool_guidance(declarations: list[FunctionDeclaration]) -> str:
    """The system text that teaches a model without function calling to call tools."""
    lines = [
        "You have access to the following tools. When you need to use a tool, respond with "
        "JSON in this exact format:",
        "",
        "```json",
        '{"tool_call": {"name": "tool_name", "arguments": {"param": "value"}}}',
        "```",
        "",
        "Available tools:",
    ]
    for decl in declarations:
        lines.append(f"**{decl.name}**: {decl.description.strip()}")
        schema = _schema_of(decl)
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        if props:
            lines.append("  Parameters:")
        for pname, pschema in props.items():
            kind = str(pschema.get("type", "any")).lower() if isinstance(pschema, dict) else "any"
            need = "required" if pname in required else "optional"
            desc = pschema.get("description", "") if isinstance(pschema, dict) else ""
            lines.append(f'    "{pname}": {kind} ({need}) - {desc}'.rstrip(" -"))
    lines += [
        "",
        "IMPORTANT:",
        "- Only use tools when necessary to complete the user's request.",
        "- Always use the exact JSON format shown above, one ```json block per tool call; "
        "several blocks call several tools.",
        "- Include all required parameters.",
        "- After your tool calls, stop and wait: each result comes back in a message starting "
        "'Tool result for'.",
    ]
    return "\n".join(lines)


def render_call(call: FunctionCall) -> str:
    """A call as the JSON text the model wrote (so history reads like its own words)."""
    body = json.dumps(
        {"tool_call": {"name": call.name, "arguments": call.args}}, ensure_ascii=False
    )
    return f"```json\n{body}\n```"


def function_response_text(response: FunctionResponse) -> str:
    """The result as text: the output string, ``Error: …``, or the JSON."""
    data = response.response
    if set(data) == {"output"} and isinstance(data["output"], str):
        return data["output"]
    if "error" in data and isinstance(data["error"], str) and len(data) == 1:
        return f"Error: {data['error']}"
    return json.dumps(data, ensure_ascii=False)


def _call_id(n: int, name: str, args: dict[str, Any]) -> str:
    digest = hashlib.sha1(
        json.dumps([name, args], sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()
    return f"text-call-{n}-{digest[:8]}"


class TextToolsGenerator:
    """Wraps any ContentGenerator; tools travel as text both ways."""

    def __init__(
        self,
        inner: ContentGenerator,
        *,
        preserve_context: bool = False,
        no_think: bool = False,
        compact: bool = False,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        # Models asked to write tool calls as text are the small local ones: no images.
        self.capabilities = replace(inner.capabilities, images=False)
        self.preserve_context = preserve_context
        self.no_think = no_think
        """Switch thinking off for models whose family has a switch (Qwen3's /no_think)."""
        self.compact = compact
        """Describe the tools one line each (small context windows, ``tool_guidance``)."""
        self._counter = itertools.count(1)

    # -- request ---------------------------------------------------------------------
    def rewrite_request(
        self, request: GenerateContentRequest, model: str = ""
    ) -> GenerateContentRequest:
        decls = [d for t in request.tools or [] for d in t.function_declarations or []]
        system_parts = [
            Part(text=p.text)
            for p in (request.system_instruction.parts if request.system_instruction else [])
            if p.text
        ]
        if decls:
            guidance = compact_guidance(decls) if self.compact else tool_guidance(decls)
            system_parts.append(Part(text=guidance))
        kept_tools = [t for t in request.tools or [] if t.google_search is not None]
        rewritten = request.model_copy(
            update={
                "contents": [self._render(c) for c in request.contents],
                "system_instruction": Content(role="user", parts=system_parts)
                if system_parts
                else None,
                "tools": kept_tools or None,
                "tool_config": None,
            }
        )
        switch = no_think_switch(model) if self.no_think else None
        return with_no_think(rewritten, switch) if switch else rewritten

    def _render(self, content: Content) -> Content:
        texts: list[str] = []
        others: list[Part] = []
        for part in content.parts:
            if part.thought:
                continue
            if part.function_call is not None:
                texts.append(render_call(part.function_call))
            elif part.function_response is not None:
                fr = part.function_response
                texts.append(f"Tool result for {fr.name} ({fr.id}): {function_response_text(fr)}")
            elif part.text is not None:
                if part.text.strip():
                    texts.append(part.text.strip() if content.role == "model" else part.text)
            else:
                others.append(part.model_copy(update={"thought_signature": None}))
        text = "\n\n".join(texts)
        parts = ([Part(text=text)] if text else []) + others
        return Content(role=content.role, parts=parts or [Part(text="")])

    # -- response --------------------------------------------------------------------
    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        think = ThinkSplitter(opened=opens_thought_in_prompt(model))
        names = [d.name for t in request.tools or [] for d in t.function_declarations or []]
        extractor = CallExtractor(names, preserve_context=self.preserve_context)
        finish: str | None = None
        usage: UsageMetadata | None = None
        native: list[Part] = []
        rewritten = self.rewrite_request(request, model)
        inner = self.inner.stream(rewritten, model=model, prompt_id=prompt_id)
        try:
            async for chunk in inner:
                parts: list[Part] = []
                for cand in chunk.candidates or []:
                    for part in cand.content.parts if cand.content else []:
                        if part.function_call is not None:
                            native.append(part)
                        elif part.text is None or part.thought:
                            parts.append(part)
                        else:
                            self._split(think.feed(part.text), extractor, parts)
                    finish = cand.finish_reason or finish
                usage = chunk.usage_metadata or usage
                if parts:
                    yield _response(parts)
        finally:
            close = getattr(inner, "aclose", None)
            if close is not None:
                await close()
        parts = []
        self._split(think.flush(), extractor, parts)
        tail = extractor.flush(cut_off=finish == "MAX_TOKENS")
        if tail:
            parts.append(Part(text=tail))
        if finish is not None:
            if extractor.malformed and not extractor.calls:
                finish = "MALFORMED_FUNCTION_CALL"
            for name, args in extractor.calls:
                call = FunctionCall(
                    id=_call_id(next(self._counter), name, args), name=name, args=args
                )
                parts.append(Part(function_call=call))
            parts.extend(native)
        if parts or finish is not None or usage is not None:
            yield _response(parts, finish, usage)

    @staticmethod
    def _split(pieces: list[tuple[bool, str]], extractor: CallExtractor, parts: list[Part]) -> None:
        for is_thought, piece in pieces:
            if is_thought:
                parts.append(Part(text=piece, thought=True))
            else:
                visible = extractor.feed(piece)
                if visible:
                    parts.append(Part(text=visible))

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        """One whole response, assembled from the stream (so parsing is the same)."""
        parts: list[Part] = []
        finish: str | None = None
        usage: UsageMetadata | None = None
        async for chunk in self.stream(request, model=model, prompt_id=prompt_id):
            for cand in chunk.candidates or []:
                parts.extend(cand.content.parts if cand.content else [])
                finish = cand.finish_reason or finish
            usage = chunk.usage_metadata or usage
        return _response(parts, finish, usage)

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        return await self.inner.count_tokens([self._render(c) for c in contents], model=model)

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        return await self.inner.embed(texts, model=model)

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def aclose(self) -> None:
        await self.inner.aclose()


def _response(
    parts: list[Part], finish: str | None = None, usage: UsageMetadata | None = None
) -> GenerateContentResponse:
    cand = Candidate(content=Content(role="model", parts=parts), finish_reason=finish, index=0)
    return GenerateContentResponse(candidates=[cand], usage_metadata=usage)
