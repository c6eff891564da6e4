"""Helpers over parts and responses, shared by every provider and view."""

from __future__ import annotations

import json

from gemtui.wire.types import Content, FunctionCall, GenerateContentResponse, Part


def response_text(response: GenerateContentResponse, *, thoughts: bool = False) -> str:
    """Concatenated text of the first candidate (thought parts only when asked)."""
    parts = first_parts(response)
    return "".join(
        p.text or "" for p in parts if p.text is not None and bool(p.thought) == thoughts
    )


def first_parts(response: GenerateContentResponse) -> list[Part]:
    """Parts of the first candidate, or [] when the server sent none."""
    if not response.candidates:
        return []
    content = response.candidates[0].content
    return list(content.parts) if content else []


def function_calls(response: GenerateContentResponse) -> list[FunctionCall]:
    return [p.function_call for p in first_parts(response) if p.function_call is not None]


def part_to_display(part: Part) -> str:
    """A short human-readable string for any part (logs, transcripts, exports)."""
    if part.text is not None:
        return f"[thought: {part.text}]" if part.thought else part.text
    if part.function_call is not None:
        args = json.dumps(part.function_call.args, ensure_ascii=False)
        return f"[function call: {part.function_call.name}({args})]"
    if part.function_response is not None:
        return f"[function response: {part.function_response.name}]"
    if part.inline_data is not None:
        return f"<{part.inline_data.mime_type}>"
    if part.file_data is not None:
        return f"<file: {part.file_data.file_uri}>"
    return ""


def append_text(parts: list[Part], text: str) -> None:
    """Append text to the last plain text part, or add a new one (merge adjacent text)."""
    if parts:
        last = parts[-1]
        if last.text is not None and not last.thought and last.function_call is None:
            last.text += text
            return
    parts.append(Part(text=text))


def is_function_response(content: Content) -> bool:
    return (
        content.role == "user"
        and bool(content.parts)
        and all(p.function_response is not None for p in content.parts)
    )


def is_function_call(content: Content) -> bool:
    return content.role == "model" and any(p.function_call is not None for p in content.parts)
