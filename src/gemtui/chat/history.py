"""History rules: what a valid model output is, curation, consolidation, signatures."""

from __future__ import annotations

from gemtui.wire import Content, Part, append_text

__all__ = [
    "SKIP_THOUGHT_SIGNATURE",
    "consolidate_parts",
    "ensure_active_loop_signatures",
    "extract_curated_history",
    "is_valid_content",
    "merge_user_turns",
    "strip_thought_signatures",
]

SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator"
"""What Gemini accepts in place of a lost signature on a functionCall of the active loop."""


def is_valid_content(content: Content) -> bool:
    """A model output worth keeping: some non-empty text, a call or a response."""
    if not content.parts:
        return False
    for part in content.parts:
        if part.function_call is not None or part.function_response is not None:
            return True
        if part.inline_data is not None or part.file_data is not None:
            return True
        if part.text is not None and not part.thought and part.text.strip():
            return True
    return False


def extract_curated_history(history: list[Content]) -> list[Content]:
    """Drop each user turn whose model output was invalid, together with that output.

    Tool results are never dropped: their calls stand earlier in the history, and a call
    without its result is an error for every API. Only the invalid output goes.
    """
    curated: list[Content] = []
    i, n = 0, len(history)
    while i < n:
        if history[i].role == "user":
            user = history[i]
            outputs: list[Content] = []
            while i + 1 < n and history[i + 1].role == "model":
                i += 1
                outputs.append(history[i])
            if all(is_valid_content(c) for c in outputs):
                curated.append(user)
                curated.extend(outputs)
            elif any(p.function_response is not None for p in user.parts):
                curated.append(user)
        else:
            curated.append(history[i])
        i += 1
    return curated


def merge_user_turns(contents: list[Content]) -> list[Content]:
    """One user turn where the history holds two in a row: a call cancelled with Esc
    leaves its error response as a user turn, and the next prompt must join it, as the
    wire expects turns to alternate (the responses stay first, where every API wants
    them). The history itself keeps both, as they happened."""
    out: list[Content] = []
    for content in contents:
        if out and content.role == "user" and out[-1].role == "user":
            out[-1] = Content(role="user", parts=[*out[-1].parts, *content.parts])
        else:
            out.append(content)
    return out


def consolidate_parts(parts: list[Part], *, keep_thoughts: bool = False) -> list[Part]:
    """Merge adjacent plain text; drop thought text (only its signature matters).

    With ``keep_thoughts`` (Anthropic, whose thinking blocks must go back verbatim),
    adjacent thought parts merge into one that keeps its text and signature.
    """
    out: list[Part] = []
    run: list[str] = []
    pending_signature: str | None = None

    def flush() -> None:
        if run:
            append_text(out, "".join(run))
            run.clear()

    for part in parts:
        if part.thought and keep_thoughts:
            flush()
            last = out[-1] if out else None
            if last is not None and last.thought and not last.thought_signature:
                out[-1] = last.model_copy(
                    update={
                        "text": (last.text or "") + (part.text or ""),
                        "thought_signature": part.thought_signature,
                    }
                )
            else:
                out.append(part.model_copy())
            continue
        if part.thought:
            if part.thought_signature:
                pending_signature = part.thought_signature
            continue
        if pending_signature and part.thought_signature is None:
            part = part.model_copy(update={"thought_signature": pending_signature})
            pending_signature = None
        if (
            part.text is not None
            and part.function_call is None
            and part.thought_signature is None
            and part.inline_data is None
        ):
            run.append(part.text)
            continue
        flush()
        out.append(part)
    flush()
    return [p for p in out if p.text != "" or p.function_call or p.thought_signature]


def strip_thought_signatures(history: list[Content]) -> list[Content]:
    """Signatures are tied to a model: drop them all when the model changes.

    Contents without a signature are kept as the same objects.
    """
    out: list[Content] = []
    for c in history:
        if any(p.thought_signature for p in c.parts):
            parts = [p.model_copy(update={"thought_signature": None}) for p in c.parts]
            c = Content(role=c.role, parts=parts)
        out.append(c)
    return out


def ensure_active_loop_signatures(contents: list[Content]) -> list[Content]:
    """The first functionCall of each model turn after the last user text needs a signature."""
    start = 0
    for idx in range(len(contents) - 1, -1, -1):
        c = contents[idx]
        if c.role == "user" and any(p.text is not None for p in c.parts):
            start = idx + 1
            break
    out = list(contents)
    for idx in range(start, len(out)):
        c = out[idx]
        if c.role != "model":
            continue
        for j, part in enumerate(c.parts):
            if part.function_call is not None:
                if not part.thought_signature:
                    parts = list(c.parts)
                    parts[j] = part.model_copy(update={"thought_signature": SKIP_THOUGHT_SIGNATURE})
                    out[idx] = Content(role=c.role, parts=parts)
                break
    return out
