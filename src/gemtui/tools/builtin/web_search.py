"""google_web_search: a grounded answer from Gemini's Google Search tool, with citations.

The tool asks the session's current model once more, with ``tools: [{googleSearch: {}}]``
instead of our declarations, and returns the answer with ``[n]`` markers where the
grounding supports end, then the sources. Offsets are UTF-8 *byte* offsets into the
concatenated non-thought text of the whole (streamed) answer, so markers are placed in
the encoded bytes, from the last to the first, and never inside a character or a
grapheme cluster (an emoji ZWJ sequence, a letter with combining marks).

A search that fails (an HTTP error after the retries, a dropped connection, a stream that
broke) answers the model with what went wrong ("search failed: 500 …"), a tool error it
can act on, and leaves no traceback in the log: it is the server's fault, not a bug.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any

from pydantic import Field, field_validator

from gemtui.errors import ApiError, GemtuiError, TransportError
from gemtui.providers.base import aclose_stream
from gemtui.tools.base import (
    ToolContext,
    ToolError,
    ToolInvocation,
    ToolKind,
    ToolResult,
    TypedInvocation,
    TypedTool,
)
from gemtui.tools.params import ToolParams
from gemtui.wire import (
    Content,
    GenerateContentRequest,
    GenerateContentResponse,
    GroundingChunk,
    GroundingMetadata,
    GroundingSupport,
    Part,
)
from gemtui.wire import Tool as WireTool

__all__ = [
    "GoogleWebSearchTool",
    "ModelStream",
    "collect_answer",
    "format_sources",
    "insert_citations",
    "search_failure",
    "search_request",
]

ModelStream = Callable[[GenerateContentRequest], AsyncIterator[GenerateContentResponse]]
"""Streams one request to the session's current model (see ``ToolContext.model_stream``)."""


def _grapheme_bounds(text: str) -> list[int]:
    """Byte offsets (UTF-8) where a grapheme cluster starts, plus the end of the text."""
    import regex  # only when a grounded answer is formatted: keeps start-up light

    bounds = [0]
    pos = 0
    for cluster in regex.findall(r"\X", text):
        pos += len(cluster.encode("utf-8"))
        bounds.append(pos)
    return bounds


def insert_citations(
    text: str, supports: Iterable[GroundingSupport], source_count: int | None = None
) -> str:
    """``text`` with ``[n]`` markers after each support's segment (``endIndex``, in bytes).

    An offset inside a character or a grapheme cluster moves to the cluster's end; one past
    the text is the text's end. A missing index is 0 (proto3 leaves zeros out); a support
    whose end comes before its start, or that names no source, adds nothing; indices
    outside the sources (``source_count``) are dropped so every marker has a source line.
    Markers at one offset keep the supports' order.
    """
    data = text.encode("utf-8")
    bounds = _grapheme_bounds(text)
    at: dict[int, list[str]] = {}
    for support in supports:
        seg = support.segment
        if seg is None or not support.grounding_chunk_indices:
            continue
        start = seg.start_index or 0
        end = seg.end_index or 0
        if end < start:
            continue
        indices = [
            i
            for i in support.grounding_chunk_indices
            if i >= 0 and (source_count is None or i < source_count)
        ]
        if not indices:
            continue
        end = bounds[bisect_left(bounds, min(max(end, 0), len(data)))]
        at.setdefault(end, []).append("".join(f"[{i + 1}]" for i in indices))
    for offset in sorted(at, reverse=True):  # last to first: earlier offsets stay valid
        data = data[:offset] + "".join(at[offset]).encode("utf-8") + data[offset:]
    return data.decode("utf-8")


def format_sources(chunks: Sequence[GroundingChunk]) -> list[str]:
    """``[n] title (uri)`` per grounding chunk, "Untitled" / "No URI" when missing."""
    lines = []
    for n, chunk in enumerate(chunks, 1):
        web = chunk.web
        title = (web.title if web else None) or "Untitled"
        uri = (web.uri if web else None) or "No URI"
        lines.append(f"[{n}] {title} ({uri})")
    return lines


def collect_answer(
    responses: Iterable[GenerateContentResponse],
) -> tuple[str, GroundingMetadata | None]:
    """The whole answer's non-thought text and its grounding metadata.

    Chunks before the last may carry an empty ``groundingMetadata: {}``; the last one that
    says anything wins.
    """
    texts: list[str] = []
    meta: GroundingMetadata | None = None
    for response in responses:
        for cand in (response.candidates or [])[:1]:
            for part in cand.content.parts if cand.content else []:
                if part.text is not None and not part.thought:
                    texts.append(part.text)
            gm = cand.grounding_metadata
            if gm is not None and (gm.grounding_chunks or gm.grounding_supports):
                meta = gm
    return "".join(texts), meta


def search_request(query: str) -> GenerateContentRequest:
    """The one-off grounded request: the query alone, Google Search as the only tool."""
    return GenerateContentRequest(
        contents=[Content(role="user", parts=[Part(text=query)])],
        tools=[WireTool(google_search={})],
    )


async def _search(model_stream: ModelStream, query: str) -> list[GenerateContentResponse]:
    """Every response of the grounded request (the stream is closed however it ends)."""
    responses: list[GenerateContentResponse] = []
    stream = model_stream(search_request(query))
    try:
        async for response in stream:
            responses.append(response)
    finally:
        await aclose_stream(stream)
    return responses


def search_failure(exc: GemtuiError) -> str:
    """What the model reads when the search request failed: the status and the reason."""
    if isinstance(exc, ApiError):
        what = f"{exc.status} {exc.message}".strip()
    elif isinstance(exc, TransportError):
        what = f"no answer from the search service ({exc})"
    else:
        what = str(exc) or type(exc).__name__
    return f"search failed: {what}. No results; answer without them or try again later."


class GoogleWebSearchParams(ToolParams):
    """google_web_search's arguments, as Gemini CLI declares them."""

    query: str = Field(description="The search query to find information on the web.")

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("The 'query' parameter cannot be empty.")
        return value


class GoogleWebSearchInvocation(TypedInvocation[GoogleWebSearchParams]):
    """One validated google_web_search call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        query = self.params.query.strip()
        if ctx.model_stream is None:
            raise ToolError("google_web_search is not available: no model to search with.")
        if ctx.web_searches is not None:
            ctx.web_searches.take()
        try:
            responses = await _search(ctx.model_stream, query)
        except GemtuiError as exc:
            raise ToolError(search_failure(exc)) from exc
        text, meta = collect_answer(responses)
        if not text.strip():
            return ToolResult(
                llm_content=f'No search results or information found for query: "{query}"',
                display="No information found.",
            )
        chunks = (meta.grounding_chunks if meta else None) or []
        supports = (meta.grounding_supports if meta else None) or []
        marked = insert_citations(text, supports, len(chunks))
        sources = format_sources(chunks)
        body = marked + ("\n\nSources:\n" + "\n".join(sources) if sources else "")
        display = f'Search results for "{query}" returned.'
        if sources:
            display += "\n" + "\n".join(sources)
        data: dict[str, Any] = {
            "sources": [
                {"title": c.web.title if c.web else None, "uri": c.web.uri if c.web else None}
                for c in chunks
            ]
        }
        return ToolResult(
            llm_content=f'Web search results for "{query}":\n\n{body}', display=display, data=data
        )


class GoogleWebSearchTool(TypedTool[GoogleWebSearchParams]):
    """Why: a coding agent must look up what changed after its training (APIs, errors)."""

    name = "google_web_search"
    display_name = "GoogleSearch"
    kind = ToolKind.SEARCH
    description = (
        "Performs a web search using Google Search (via the Gemini API) and returns the "
        "results. This tool is useful for finding information on the internet based on a "
        "query."
    )
    params_model = GoogleWebSearchParams

    def invoke(self, params: GoogleWebSearchParams, args: dict[str, Any]) -> ToolInvocation:
        return GoogleWebSearchInvocation(self, args, params)
