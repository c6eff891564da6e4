"""Gemini CLI's model hooks: ``BeforeModel``, ``BeforeToolSelection`` and ``AfterModel``.

Hooks see Gemini CLI's stable, SDK-agnostic shapes, not our wire types: ``llm_request`` is
``{model, messages: [{role, content}], config, toolConfig: {mode, allowedFunctionNames}}``
(text only) and ``llm_response`` is ``{candidates: [{content: {role, parts: [text]},
finishReason}], usageMetadata}``. What their answers do, as Gemini CLI's reference says:

- **BeforeModel**: ``hookSpecificOutput.llm_request`` overrides the ``model`` and ``config``
  (temperature…); ``hookSpecificOutput.llm_response`` answers in place of the model (no
  call is made); ``decision: deny`` or exit 2 blocks the turn.
- **BeforeToolSelection**: ``hookSpecificOutput.toolConfig.mode`` ``NONE`` takes every tool
  away (and wins), ``ANY`` forces a call; ``allowedFunctionNames`` of every hook are joined
  and only those tools are offered.
- **AfterModel**: run on every chunk; ``hookSpecificOutput.llm_response`` replaces the
  chunk's text (its calls stay); ``decision: deny`` or exit 2 drops the chunk and ends the
  turn.

``continue: false`` (BeforeModel, AfterModel) ends the agent loop as done: exit 0, the
answer so far kept, no call of this turn run.

BeforeModel's ``llm_request.messages`` replace the conversation's text in order, as Gemini
CLI merges them (calls, results and thoughts stay; extra messages are new turns).

A block raises ``HookBlockedError``: the turn ends (exit 1 headless) with the hook's reason.
"""

from __future__ import annotations

import contextlib
from typing import Any, Literal

from pydantic import ValidationError

from gemtui.errors import HookBlockedError, HookStoppedError
from gemtui.hooks.runner import HookAnswer, HookRunner
from gemtui.wire import (
    Content,
    GenerateContentRequest,
    GenerateContentResponse,
    GenerationConfig,
    Part,
)
from gemtui.wire.types import Candidate, FunctionCallingConfig, Tool, ToolConfig

__all__ = ["MODEL_EVENTS", "SessionModelHooks", "llm_request", "llm_response", "model_hooks"]

MODEL_EVENTS = ("BeforeModel", "BeforeToolSelection", "AfterModel")


def llm_request(request: GenerateContentRequest, model: str) -> dict[str, Any]:
    """The request in Gemini CLI's stable hook format (non-text parts left out)."""
    messages: list[dict[str, str]] = []
    if request.system_instruction is not None:
        messages.append({"role": "system", "content": _text(request.system_instruction)})
    for content in request.contents:
        text = _text(content)
        if text:
            messages.append({"role": content.role or "user", "content": text})
    config = request.generation_config
    calling = request.tool_config.function_calling_config if request.tool_config else None
    names = [d.name for t in request.tools or () for d in t.function_declarations or ()]
    return {
        "model": model,
        "messages": messages,
        "config": config.model_dump(mode="json", by_alias=True, exclude_none=True)
        if config
        else {},
        "toolConfig": {
            "mode": (calling.mode if calling and calling.mode else "AUTO"),
            "allowedFunctionNames": names,
        },
    }


def llm_response(chunk: GenerateContentResponse) -> dict[str, Any]:
    """A response (or chunk) in Gemini CLI's stable hook format."""
    candidates = [
        {
            "content": {
                "role": "model",
                "parts": [p.text for p in (c.content.parts if c.content else []) if p.text],
            },
            "finishReason": c.finish_reason,
        }
        for c in chunk.candidates or ()
    ]
    usage = chunk.usage_metadata
    total = usage.total_token_count if usage else None
    return {"candidates": candidates, "usageMetadata": {"totalTokenCount": total}}


def _text(content: Content) -> str:
    return "".join(p.text for p in content.parts if p.text and not p.thought)


def _blocked(event: str, answers: list[HookAnswer]) -> None:
    for answer in answers:
        if answer.stops and not answer.denies:  # the loop ends, as done (exit 0)
            raise HookStoppedError(f"The {event} hook {answer.spec.name}: {answer.stop_reason}")
        if answer.denies:
            why = answer.deny_reason
            raise HookBlockedError(
                f"The {event} hook {answer.spec.name} blocked the model call"
                + (f": {why}" if why else ".")
            )


def _response(value: Any, finish: str | None = "STOP") -> GenerateContentResponse | None:
    """A hook's ``llm_response`` as a wire response; None when it is not one."""
    if not isinstance(value, dict) or not isinstance(value.get("candidates"), list):
        return None
    candidates = []
    for raw in value["candidates"]:
        if not isinstance(raw, dict):
            return None
        content = raw.get("content")
        content = content if isinstance(content, dict) else {}
        parts = [Part(text=p) for p in content.get("parts") or () if isinstance(p, str)]
        reason = raw.get("finishReason", finish)
        candidates.append(
            Candidate(
                content=Content(role="model", parts=parts),
                finish_reason=reason if isinstance(reason, str) else finish,
            )
        )
    return GenerateContentResponse(candidates=candidates)


class SessionModelHooks:
    """The session chat's ``ModelHooks``: its hook runner's model events."""

    def __init__(self, runner: HookRunner) -> None:
        self.runner = runner
        self._model = ""
        """The model of the call in flight (AfterModel's ``llm_request`` names it)."""

    async def before_model(
        self, request: GenerateContentRequest, model: str
    ) -> tuple[GenerateContentRequest, str, GenerateContentResponse | None]:
        hooks = self.runner.hooks
        if hooks.for_event("BeforeModel"):
            answers = await self.runner.run(
                "BeforeModel", {"llm_request": llm_request(request, model)}
            )
            _blocked("BeforeModel", answers)
            for answer in answers:
                override = answer.specific.get("llm_request")
                if isinstance(override, dict):
                    request, model = _apply(request, model, override)
                synthetic = _response(answer.specific.get("llm_response"))
                if synthetic is not None:
                    self._model = model
                    return request, model, synthetic
        if hooks.for_event("BeforeToolSelection"):
            payload = {"llm_request": llm_request(request, model)}
            request = _select_tools(request, await self.runner.run("BeforeToolSelection", payload))
        self._model = model
        return request, model, None

    async def after_model(
        self, request: GenerateContentRequest, chunk: GenerateContentResponse
    ) -> GenerateContentResponse:
        if not self.runner.hooks.for_event("AfterModel"):
            return chunk
        payload = {
            "llm_request": llm_request(request, self._model),
            "llm_response": llm_response(chunk),
        }
        answers = await self.runner.run("AfterModel", payload)
        _blocked("AfterModel", answers)
        for answer in answers:
            replaced = _response(answer.specific.get("llm_response"), finish=None)
            if replaced is not None:
                chunk = _replace_text(chunk, replaced)
        return chunk


def _apply(
    request: GenerateContentRequest, model: str, override: dict[str, Any]
) -> tuple[GenerateContentRequest, str]:
    """A BeforeModel ``llm_request``: its ``model`` and ``config`` replace ours, and its
    ``messages`` the conversation's text."""
    messages = override.get("messages")
    if isinstance(messages, list):
        request = _merge_messages(request, messages)
    new_model = override.get("model")
    if isinstance(new_model, str) and new_model.strip():
        model = new_model.strip()
    config = override.get("config")
    if isinstance(config, dict):
        current = request.generation_config or GenerationConfig()
        merged = {**current.model_dump(by_alias=True, exclude_none=True), **config}
        with contextlib.suppress(ValidationError):  # an unusable config changes nothing
            request = request.model_copy(
                update={"generation_config": GenerationConfig.model_validate(merged)}
            )
    return request, model


def _merge_messages(request: GenerateContentRequest, messages: list[Any]) -> GenerateContentRequest:
    """Gemini CLI's merge: the hook's messages replace, in order, the text of each content
    that had text (its calls, results and thoughts stay); messages beyond them are new
    turns. A text the hook left as it was keeps its part (and any thought signature)."""
    todo = [m for m in messages if isinstance(m, dict) and isinstance(m.get("content"), str)]
    system = request.system_instruction
    if system is not None and todo and todo[0].get("role") == "system":
        system = _with_text(system, str(todo.pop(0)["content"]), system.role)
    contents: list[Content] = []
    for content in request.contents:
        if todo and _text(content):
            message = todo.pop(0)
            content = _with_text(content, str(message["content"]), _role(message))
        contents.append(content)
    for message in todo:
        contents.append(Content(role=_role(message), parts=[Part(text=str(message["content"]))]))
    return request.model_copy(update={"system_instruction": system, "contents": contents})


def _role(message: dict[str, Any]) -> Literal["user", "model"]:
    return "model" if message.get("role") == "model" else "user"


def _with_text(content: Content, text: str, role: Literal["user", "model"] | None) -> Content:
    if text == _text(content) and role == content.role:
        return content
    kept = [p for p in content.parts if not p.text or p.thought]
    return Content(role=role, parts=[Part(text=text), *kept])


def _select_tools(
    request: GenerateContentRequest, answers: list[HookAnswer]
) -> GenerateContentRequest:
    modes: list[str] = []
    allowed: set[str] | None = None
    for answer in answers:
        config = answer.specific.get("toolConfig")
        if answer.outcome != "ok" or not isinstance(config, dict):
            continue
        mode = config.get("mode")
        if isinstance(mode, str):
            modes.append(mode.upper())
        names = config.get("allowedFunctionNames")
        if isinstance(names, list):
            allowed = (allowed or set()) | {n for n in names if isinstance(n, str)}
    if "NONE" in modes:  # NONE wins over every other hook
        return request.model_copy(
            update={
                "tools": None,
                "tool_config": ToolConfig(
                    function_calling_config=FunctionCallingConfig(mode="NONE")
                ),
            }
        )
    update: dict[str, Any] = {}
    if allowed is not None:
        tools = [
            Tool(function_declarations=kept)
            for t in request.tools or ()
            if (kept := [d for d in t.function_declarations or () if d.name in allowed])
        ]
        update["tools"] = tools or None
    if "ANY" in modes:
        update["tool_config"] = ToolConfig(
            function_calling_config=FunctionCallingConfig(mode="ANY")
        )
    return request.model_copy(update=update) if update else request


def _replace_text(
    chunk: GenerateContentResponse, replaced: GenerateContentResponse
) -> GenerateContentResponse:
    """The chunk with its text parts replaced by the hook's (calls and thoughts stay)."""
    if not chunk.candidates or not replaced.candidates:
        return chunk
    old = chunk.candidates[0]
    new_parts = replaced.candidates[0].content.parts if replaced.candidates[0].content else []
    kept = [p for p in (old.content.parts if old.content else []) if not p.text or p.thought]
    content = Content(role="model", parts=[*new_parts, *kept])
    first = old.model_copy(update={"content": content})
    return chunk.model_copy(update={"candidates": [first, *chunk.candidates[1:]]})


def model_hooks(runner: HookRunner) -> SessionModelHooks | None:
    """The chat's model hooks, or None when no hook listens to a model event."""
    if any(h.event in MODEL_EVENTS for h in runner.hooks.hooks):
        return SessionModelHooks(runner)
    return None
