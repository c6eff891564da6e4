"""After a text-only answer, one small JSON-mode call asks whether the model meant to go on.

Why: a model sometimes announces an action ("Now I'll update the tests.") and stops
without calling the tool; the prompt then ends with the work half done. Gemini CLI's
``checkNextSpeaker`` asks, after such an answer, who speaks next, and sends "Please
continue." when it is the model. Gemini CLI later turned the check off by default (it
could make the model talk to itself, and costs a call per answer), so here it is off
unless ``[agent] next_speaker_check = true``; for Gemini providers the call goes to
Flash, elsewhere to the conversation's own model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from gemtui.bus.events import Usage
from gemtui.chat.turn import usage_from_metadata
from gemtui.providers.json_question import ask_json
from gemtui.wire import Content, Part, ThinkingConfig

if TYPE_CHECKING:
    from gemtui.providers.base import ContentGenerator

__all__ = ["CONTINUE", "NextSpeakerCheck", "SpeakerVerdict"]

CONTINUE = "Please continue."
"""What the model is sent when it should go on (Gemini CLI's words)."""

_QUESTION = """Look only at your previous answer, the last turn of this conversation, \
and decide who should speak next: "model" (you) or "user".
- "model" when that answer says what you will do right now ("Next I will...", "Let me \
now...") without having done it, or when it stops mid-thought.
- "user" when that answer ends by asking the user something.
- "user" otherwise: the answer is complete and waits for the user.
Answer with JSON only: {"reasoning": "<one short sentence>", "next_speaker": "user"|"model"}."""


class SpeakerAnswer(BaseModel):
    """The check's JSON; the reasoning is asked for (it steadies the answer) and not read."""

    model_config = ConfigDict(json_schema_extra={"required": ["reasoning", "next_speaker"]})

    reasoning: object = Field(default=None, json_schema_extra={"type": "string"})
    next_speaker: Literal["user", "model"]


@dataclass(frozen=True)
class SpeakerVerdict:
    """Who speaks next (None when the check failed: the prompt just ends), and the cost."""

    speaker: str | None
    usage: Usage
    model: str


@dataclass
class NextSpeakerCheck:
    """Asks ``model`` (None: the conversation's current one) who speaks next."""

    generator: ContentGenerator
    model: str | None = None
    thinking_off: bool = False
    """Send a zero thinking budget (Gemini Flash: the check needs no thoughts)."""

    async def ask(
        self, history: list[Content], current_model: str, prompt_id: str = ""
    ) -> SpeakerVerdict:
        """The verdict on the last model answer in ``history``; never raises for a
        failed call or an answer that is not the JSON asked for (the prompt ends)."""
        model = self.model or current_model
        result = await ask_json(
            lambda request: self.generator.generate(request, model=model, prompt_id=prompt_id),
            [*history, Content(role="user", parts=[Part(text=_QUESTION)])],
            SpeakerAnswer,
            thinking=ThinkingConfig(thinking_budget=0) if self.thinking_off else None,
        )
        speaker = result.value.next_speaker if result.value is not None else None
        return SpeakerVerdict(speaker, usage_from_metadata(result.usage), model)
