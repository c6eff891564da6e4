"""``-m auto``: one cheap classification call picks Flash or Pro for each prompt.

Why: most prompts ("rename this", "what does X do") need no Pro model, and Pro quota is
the scarce one; Gemini CLI routes the same way. The classifier answers in JSON mode on
the smallest model; any failure keeps the default model and says so, never stops the
prompt. A fixed model stays the default, so nothing routes unless asked. Plan mode
always plans with Pro (the plan is where the hard thinking is), and a model whose quota
ran out earlier in the session is not chosen again: the router would only walk into the
same 429 and its retries.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from typing import TYPE_CHECKING, Annotated

from msgspec import Struct, field
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from gemtui.bus.events import Usage
from gemtui.chat.turn import usage_from_metadata
from gemtui.errors import ApiError
from gemtui.providers.json_question import AnswerProblem, ask_json
from gemtui.wire import Content, Part, ThinkingConfig

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


def _reason(value: object) -> str:
    """The classifier's reason as text: a missing or odd reason never loses its choice."""
    return str(value or "").strip()


class RouteAnswer(BaseModel):
    """The classifier's JSON. The choice is checked by the router, which names a stray one."""

    model_config = ConfigDict(json_schema_extra={"required": ["reasoning", "model_choice"]})

    reasoning: Annotated[str, BeforeValidator(_reason)] = ""
    model_choice: str = Field(json_schema_extra={"enum": ["flash", "pro"]})


_CONTEXT_TURNS = 4
"""Recent history the classifier sees (text only): enough to read a follow-up."""


class RouteDecision(Struct, frozen=True):
    """The model chosen for one prompt, why, and what the classification cost."""

    model: str
    reason: str
    usage: Usage
    fell_back: bool = False
    spent: str | None = None
    """A model whose quota the classifier call found spent (429): skip it from now on."""


def _never() -> bool:
    return False


class ModelRouter(Struct):
    """Picks ``flash`` or ``pro`` per prompt with ``classifier`` (JSON mode)."""

    generator: ContentGenerator
    classifier: str = "gemini-2.5-flash-lite"
    flash: str = "gemini-2.5-flash"
    pro: str = "gemini-2.5-pro"
    plan_mode: Callable[[], bool] = field(default=_never)
    """Whether the session is in plan mode now (it routes to Pro without asking)."""

    async def choose(
        self,
        history: list[Content],
        prompt: list[Part],
        prompt_id: str = "",
        *,
        spent: Set[str] = frozenset(),
    ) -> RouteDecision:
        """The model for ``prompt``; on any failure the Pro model, with the reason.

        ``spent`` are models that answered 429 after their retries this session."""
        usable = [m for m in (self.pro, self.flash) if m not in spent]
        if not usable:
            return RouteDecision(
                self.pro, "the quota of both models is spent", Usage(), fell_back=True
            )
        if self.plan_mode():
            if self.pro in usable:
                return RouteDecision(self.pro, "plan mode plans with the Pro model", Usage())
            return RouteDecision(self.flash, f"plan mode, but {self.pro}'s quota is spent", Usage())
        if len(usable) == 1:
            other = self.flash if usable[0] == self.pro else self.pro
            return RouteDecision(usable[0], f"{other}'s quota is spent", Usage())
        if self.classifier in spent:
            return RouteDecision(
                self.pro,
                f"the router's model ({self.classifier}) is out of quota",
                Usage(),
                fell_back=True,
            )
        return await self._classify(history, prompt, prompt_id)

    async def _classify(
        self, history: list[Content], prompt: list[Part], prompt_id: str
    ) -> RouteDecision:
        """One JSON-mode call on the classifier model."""
        contents = _text_only([*history[-_CONTEXT_TURNS:], Content(role="user", parts=prompt)])
        result = await ask_json(
            lambda request: self.generator.generate(
                request, model=self.classifier, prompt_id=prompt_id
            ),
            contents,
            RouteAnswer,
            system=ROUTER_INSTRUCTION,
            thinking=ThinkingConfig(thinking_budget=0),
        )
        if result.problem is AnswerProblem.FAILED:  # a convenience: the prompt goes on
            exc = result.error
            spent = self.classifier if isinstance(exc, ApiError) and exc.status == 429 else None
            return RouteDecision(
                self.pro, f"the router failed ({exc})", Usage(), fell_back=True, spent=spent
            )
        usage = usage_from_metadata(result.usage)
        if result.value is None:
            return RouteDecision(
                self.pro, "the router's answer was not the JSON asked for", usage, fell_back=True
            )
        choice, reason = result.value.model_choice, result.value.reasoning
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
