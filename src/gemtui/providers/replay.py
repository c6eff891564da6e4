"""Plays recorded responses from a JSONL file (``--fake-responses FILE``).

Each line is one model call, in the order the calls happen. Accepted shapes:
``{"method": "generateContentStream", "response": [chunk, …]}`` (Gemini CLI's fake
responses), a bare list of chunks, or one response object. ``countTokens`` lines
(``{"method": "countTokens", "response": {"totalTokens": N}}``) are used by
``count_tokens`` only. An optional ``"delay"`` (seconds) per chunk paces a demo.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from gemtui.errors import FatalInputError
from gemtui.providers.base import Capabilities
from gemtui.wire import (
    Content,
    GenerateContentRequest,
    GenerateContentResponse,
    ModelInfo,
    Part,
)
from gemtui.wire.token_estimate import estimate_tokens

__all__ = ["ReplayGenerator"]


class ReplayGenerator:
    """Plays recorded responses back (``--fake-responses``, the demo): a model without a network."""

    name = "replay"
    capabilities = Capabilities(thought_signatures=True)

    def __init__(self, entries: list[dict[str, Any]], *, delay: float = 0.0) -> None:
        self._calls: deque[list[dict[str, Any]]] = deque()
        self._counts: deque[int] = deque()
        self._delay = delay
        self.requests: list[GenerateContentRequest] = []
        self.source: Path | None = None
        """The file played (``from_file``): the TUI knows its own demo by it."""
        for entry in entries:
            if entry.get("method") == "countTokens":
                self._counts.append(int(entry.get("response", {}).get("totalTokens", 0)))
            else:
                self._calls.append(entry["chunks"])

    @classmethod
    def from_file(cls, path: str | Path, *, delay: float = 0.0) -> ReplayGenerator:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise FatalInputError(f"cannot read --fake-responses file {p}: {exc.strerror}") from exc
        entries: list[dict[str, Any]] = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entries.append(_normalise(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                raise FatalInputError(f"{p}:{lineno}: not a recorded response ({exc})") from exc
        player = cls(entries, delay=delay)
        player.source = p
        return player

    @property
    def exhausted(self) -> bool:
        """Every recorded model call has been played: the next one would fail."""
        return not self._calls

    def _next(self) -> list[dict[str, Any]]:
        if not self._calls:
            raise FatalInputError("the fake responses file has no response left for this call")
        return self._calls.popleft()

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        self.requests.append(request)
        chunks = [GenerateContentResponse.model_validate(c) for c in self._next()]
        return _merge(chunks)

    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        self.requests.append(request)
        for chunk in self._next():
            if self._delay:
                await asyncio.sleep(self._delay)
            yield GenerateContentResponse.model_validate(chunk)

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        if self._counts:
            return self._counts.popleft()
        return estimate_tokens(contents)

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        return [[float(len(t))] for t in texts]

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(name="models/replay")]

    async def aclose(self) -> None:
        return None


def _normalise(raw: Any) -> dict[str, Any]:
    if isinstance(raw, list):
        return {"chunks": raw}
    if isinstance(raw, dict) and "method" in raw:
        if raw["method"] == "countTokens":
            return raw
        response = raw["response"]
        return {"chunks": response if isinstance(response, list) else [response]}
    if isinstance(raw, dict):
        return {"chunks": [raw]}
    raise TypeError(f"expected an object or a list, got {type(raw).__name__}")


def _merge(chunks: list[GenerateContentResponse]) -> GenerateContentResponse:
    """One response from streamed chunks: parts concatenated, the last metadata kept."""
    from gemtui.wire import Candidate, append_text

    if not chunks:
        return GenerateContentResponse(candidates=[])
    parts: list[Part] = []
    last = chunks[-1]
    finish = None
    for chunk in chunks:
        for cand in chunk.candidates or []:
            finish = cand.finish_reason or finish
            for part in cand.content.parts if cand.content else []:
                if part.text is not None and not part.thought and part.function_call is None:
                    append_text(parts, part.text)
                else:
                    parts.append(part.model_copy())
    return GenerateContentResponse(
        candidates=[Candidate(content=Content(role="model", parts=parts), finish_reason=finish)],
        usage_metadata=last.usage_metadata,
        model_version=last.model_version,
    )
