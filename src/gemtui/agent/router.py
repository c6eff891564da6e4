"""``-m auto``: one cheap classification call picks Flash or Pro for each prompt.

Why: most prompts ("rename this", "what does X do") need no Pro model, and Pro quota is
the scarce one; Gemini CLI routes the same way. The classifier answers in JSON mode on
the smallest model; any failure keeps the default model and says so, never stops the
prompt. A fixed model stays the default, so nothing routes unless asked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gemtui.bus.events import Usage
from gemtui.chat.turn import usage_from_metadata
from gemtui.wire import Content, GenerateContentRequest, GenerationConfig, Part, ThinkingConfig

if TYPE_CHECKING:
    from gemtui.providers.base import ContentGenerator

__all__ = ["AUTO", "ModelRouter", "RouteDecision"]

AUTO = "auto"
"""The model name that asks for routing (``-m auto``, ``/model auto``)."""

ROUTER_INSTRUCTION = """You route a coding assistant's requests to one of two models.
Choose "flash" for simple or well-specified tasks: questions about code, small edits,
running a command, explaining an error. Choose "pro" for hard ones: designing or
refactoring across many files, subtle debugging, long multi-step plans.
Answer with JSON only: {"reasoning": "<one short sentence>", "model_choice": "flash"|"pro"}."""

_SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string"},
        "model_choice": {"type": "string", "enum": ["flash", "pro"]},
    },
    "required": ["reasoning", "model_choice"],
}
_CONTEXT_TURNS = 4
"""Recent history the classifier sees (text only): enough to read a follow-up."""


@dataclass(frozen=True)
class RouteDecision:
    """The model chosen for one prompt, why, and what the classification cost."""

    model: str
    reason: str
    usage: Usage
    fell_back: bool = False


@dataclass
class ModelRouter:
    """Picks ``flash`` or ``pro`` per prompt with ``classifier`` (JSON mode)."""

    generator: ContentGenerator
    classifier: str = "gemini-2.5-flash-lite"
    flash: str = "gemini-2.5-flash"
    pro: str = "gemini-2.5-pro"

    async def choose(
        self, history: list[Content], prompt: list[Part], prompt_id: str = ""
    ) -> RouteDecision:
        """The model for ``prompt``; on any failure the Pro model, with the reason."""
        request = GenerateContentRequest(
            contents=_text_only([*history[-_CONTEXT_TURNS:], Content(role="user", parts=prompt)]),
            system_instruction=Content(role="user", parts=[Part(text=ROUTER_INSTRUCTION)]),
            generation_config=GenerationConfig(
                response_mime_type="application/json",
                response_schema=_SCHEMA,
                thinking_config=ThinkingConfig(thinking_budget=0),
            ),
        )
        try:
            response = await self.generator.generate(
                request, model=self.classifier, prompt_id=prompt_id
            )
        except Exception as exc:  # the router is a convenience: the prompt goes on
            return RouteDecision(self.pro, f"the router failed ({exc})", Usage(), fell_back=True)
        usage = usage_from_metadata(response.usage_metadata)
        text = "".join(
            p.text or ""
            for c in (response.candidates or [])[:1]
            for p in (c.content.parts if c.content else [])
            if not p.thought
        )
        try:
            answer = json.loads(text)
            choice = answer["model_choice"]
            reason = str(answer.get("reasoning") or "").strip()
        except (ValueError, KeyError, TypeError):
            return RouteDecision(
                self.pro, "the router's answer was not the JSON asked for", usage, fell_back=True
            )
        if choice not in ("flash", "pro"):
            return RouteDecision(self.pro, f"the router chose {choice!r}", usage, fell_back=True)
        return RouteDecision(self.flash if choice == "flash" else self.pro, reason, usage)


def _text_only(contents: list[Content]) -> list[Content]:
    """The contents with their text parts only (calls and results become a short note)."""
    out: list[Content] = []
    for content in contents:
        texts = [p.text for p in content.parts if p.text and not p.thought]
        if not texts and any(p.function_call or p.function_response for p in content.parts):
            texts = ["(tool calls)"]
        if texts:
            out.append(Content(role=content.role, parts=[Part(text="\n".join(texts))]))
    return out
