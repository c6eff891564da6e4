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

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gemtui.bus.events import Usage
from gemtui.chat.turn import usage_from_metadata
from gemtui.wire import Content, GenerateContentRequest, GenerationConfig, Part, ThinkingConfig

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

_SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string"},
        "next_speaker": {"type": "string", "enum": ["user", "model"]},
    },
    "required": ["reasoning", "next_speaker"],
}


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
        request = GenerateContentRequest(
            contents=[*history, Content(role="user", parts=[Part(text=_QUESTION)])],
            generation_config=GenerationConfig(
                response_mime_type="application/json",
                response_json_schema=_SCHEMA,
                thinking_config=ThinkingConfig(thinking_budget=0) if self.thinking_off else None,
            ),
        )
        try:
            response = await self.generator.generate(request, model=model, prompt_id=prompt_id)
        except Exception:  # a convenience: its failure never fails the prompt
            return SpeakerVerdict(None, Usage(), model)
        usage = usage_from_metadata(response.usage_metadata)
        text = "".join(
            p.text or ""
            for c in (response.candidates or [])[:1]
            for p in (c.content.parts if c.content else [])
            if not p.thought
        )
        try:
            speaker = json.loads(text)["next_speaker"]
        except (ValueError, KeyError, TypeError):
            return SpeakerVerdict(None, usage, model)
        return SpeakerVerdict(speaker if speaker in ("user", "model") else None, usage, model)
