"""What a model's name tells about its chat template: thinking switches and think tags.

Local servers serve whatever a person downloaded, under whatever name; these checks read
the family from the name as Qwen Code and Gemini CLI's forks do, and stay conservative:
a name that matches nothing changes nothing."""

from __future__ import annotations

import re

from gemtui.wire import Content, GenerateContentRequest

__all__ = ["is_qwen3", "no_think_switch", "opens_thought_in_prompt", "with_no_think"]

_QWEN3 = re.compile(r"qwen[-_ ]?3", re.IGNORECASE)
_OPENED_IN_PROMPT = ("qwq", "deepseek-r1", "r1-distill", "-thinking", "deepseek-reasoner")


def is_qwen3(model: str) -> bool:
    """Qwen3 (and 3.x) models, whose templates honour the ``/no_think`` soft switch
    (``Qwen3-8B``, ``qwen3:30b-a3b``, ``Qwen/Qwen3-32B-GGUF``, ``qwen-3-4b``)."""
    return _QWEN3.search(model) is not None


def no_think_switch(model: str) -> str | None:
    """The text that switches thinking off for this model, if its family has one.

    Qwen3's hybrid models take ``/no_think``; the Coder and Instruct-2507 releases do not
    think at all, so nothing is added for them."""
    lowered = model.lower()
    if not is_qwen3(model) or "coder" in lowered or "instruct-2507" in lowered:
        return None
    return "/no_think"


def opens_thought_in_prompt(model: str) -> bool:
    """Models whose chat template opens ``<think>`` in the prompt (QwQ, DeepSeek-R1, the
    Qwen3 Thinking releases), so their answer starts inside a thought and only its lone
    ``</think>`` shows where the thought ends."""
    lowered = model.lower()
    return any(mark in lowered for mark in _OPENED_IN_PROMPT)


def with_no_think(request: GenerateContentRequest, switch: str) -> GenerateContentRequest:
    """``request`` with ``switch`` before the text of every user message (the last switch
    in the conversation is the one the template obeys)."""
    contents: list[Content] = []
    for content in request.contents:
        parts = list(content.parts)
        if content.role == "user":
            for i, part in enumerate(parts):
                if part.text is not None and not part.thought:
                    text = part.text
                    if not text.startswith(switch):
                        parts[i] = part.model_copy(
                            update={"text": f"{switch}\n\n{text}" if text else switch}
                        )
                    break
        contents.append(Content(role=content.role, parts=parts))
    return request.model_copy(update={"contents": contents})
