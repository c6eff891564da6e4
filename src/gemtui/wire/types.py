"""Provider-neutral wire types that serialise exactly as the Gemini REST API does.

Every model uses camelCase aliases, omits unset fields when dumped (``to_wire``) and
keeps unknown fields a server sends (``extra="allow"``), so new API fields survive a
round trip instead of breaking the client.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """Base of every wire type: camelCase on the wire, snake_case in Python."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        validate_assignment=False,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict the Gemini API expects: aliases, unset fields omitted."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class Role(StrEnum):
    """Who wrote a message: the user or the model."""

    USER = "user"
    MODEL = "model"


class Blob(WireModel):
    """Inline bytes, base64 text as on the wire (kept as text, never re-encoded)."""

    mime_type: str
    data: str


class FileData(WireModel):
    """A file referenced by URI."""

    mime_type: str | None = None
    file_uri: str


class FunctionCall(WireModel):
    """A call the model asks for: name, arguments and its id."""

    id: str | None = None
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class FunctionResponse(WireModel):
    """The answer to a function call, matched by id."""

    id: str | None = None
    name: str
    response: dict[str, Any] = Field(default_factory=dict)


class Part(WireModel):
    """One part of a Content: exactly one of text / inline_data / file_data /
    function_call / function_response, plus the thought flag and signature."""

    text: str | None = None
    inline_data: Blob | None = None
    file_data: FileData | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    thought: bool | None = None
    thought_signature: str | None = None

    @classmethod
    def from_text(cls, text: str) -> Part:
        return cls(text=text)


class Content(WireModel):
    """One message of the conversation: a role and its parts."""

    role: Literal["user", "model"] | None = None
    parts: list[Part] = Field(default_factory=list)

    @classmethod
    def user(cls, text: str) -> Content:
        return cls(role="user", parts=[Part(text=text)])

    @classmethod
    def model(cls, text: str) -> Content:
        return cls(role="model", parts=[Part(text=text)])


class FunctionDeclaration(WireModel):
    """A tool offered to the model: name, description, parameter schema."""

    name: str
    description: str = ""
    parameters: dict[str, Any] | None = None
    parameters_json_schema: dict[str, Any] | None = None


class Tool(WireModel):
    """A group of declarations (or a built-in tool such as googleSearch)."""

    function_declarations: list[FunctionDeclaration] | None = None
    google_search: dict[str, Any] | None = None


class FunctionCallingConfig(WireModel):
    """How the model may call functions (auto, any, none)."""

    mode: str | None = None
    allowed_function_names: list[str] | None = None


class ToolConfig(WireModel):
    """Tool settings of a request."""

    function_calling_config: FunctionCallingConfig | None = None


class ThinkingConfig(WireModel):
    """Whether thoughts are returned and how many tokens they may take."""

    include_thoughts: bool | None = None
    thinking_budget: int | None = None


class GenerationConfig(WireModel):
    """Sampling and output settings of a request."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    candidate_count: int | None = None
    max_output_tokens: int | None = None
    stop_sequences: list[str] | None = None
    response_mime_type: str | None = None
    response_schema: dict[str, Any] | None = None
    """The OpenAPI-subset schema (``responseSchema``)."""
    response_json_schema: dict[str, Any] | None = None
    """A JSON Schema (``responseJsonSchema``), what Gemini CLI's JSON-mode calls send."""
    thinking_config: ThinkingConfig | None = None


class SafetySetting(WireModel):
    """A safety threshold for one harm category."""

    category: str
    threshold: str


class GenerateContentRequest(WireModel):
    """The body of generateContent / streamGenerateContent (model goes in the URL)."""

    contents: list[Content]
    system_instruction: Content | None = None
    tools: list[Tool] | None = None
    tool_config: ToolConfig | None = None
    safety_settings: list[SafetySetting] | None = None
    generation_config: GenerationConfig | None = None
    cached_content: str | None = None


class ModalityTokenCount(WireModel):
    """Tokens per modality (text, image…)."""

    modality: str | None = None
    token_count: int | None = None


class UsageMetadata(WireModel):
    """Token counts a response reports."""

    prompt_token_count: int | None = None
    candidates_token_count: int | None = None
    total_token_count: int | None = None
    cached_content_token_count: int | None = None
    thoughts_token_count: int | None = None
    tool_use_prompt_token_count: int | None = None


class CitationSource(WireModel):
    """A source a response cites, with its span."""

    start_index: int | None = None
    end_index: int | None = None
    uri: str | None = None
    title: str | None = None
    license: str | None = None


class CitationMetadata(WireModel):
    """The sources a candidate cites."""

    citation_sources: list[CitationSource] | None = None


class GroundingChunkWeb(WireModel):
    """A web page a grounded answer used."""

    uri: str | None = None
    title: str | None = None


class GroundingChunk(WireModel):
    """One source of a grounded answer."""

    web: GroundingChunkWeb | None = None


class Segment(WireModel):
    """UTF-8 *byte* offsets into the whole streamed non-thought text; no start means 0."""

    start_index: int | None = None
    end_index: int | None = None
    part_index: int | None = None
    text: str | None = None


class GroundingSupport(WireModel):
    """Which answer span (UTF-8 byte offsets) which sources support."""

    segment: Segment | None = None
    grounding_chunk_indices: list[int] | None = None
    confidence_scores: list[float] | None = None


class GroundingMetadata(WireModel):
    """A grounded answer's sources and supports."""

    grounding_chunks: list[GroundingChunk] | None = None
    grounding_supports: list[GroundingSupport] | None = None
    web_search_queries: list[str] | None = None


class SafetyRating(WireModel):
    """How a candidate rated for one harm category."""

    category: str | None = None
    probability: str | None = None
    blocked: bool | None = None


class FinishReason(StrEnum):
    """Why the model stopped."""

    FINISH_REASON_UNSPECIFIED = "FINISH_REASON_UNSPECIFIED"
    STOP = "STOP"
    MAX_TOKENS = "MAX_TOKENS"
    SAFETY = "SAFETY"
    RECITATION = "RECITATION"
    LANGUAGE = "LANGUAGE"
    OTHER = "OTHER"
    BLOCKLIST = "BLOCKLIST"
    PROHIBITED_CONTENT = "PROHIBITED_CONTENT"
    SPII = "SPII"
    MALFORMED_FUNCTION_CALL = "MALFORMED_FUNCTION_CALL"
    IMAGE_SAFETY = "IMAGE_SAFETY"
    UNEXPECTED_TOOL_CALL = "UNEXPECTED_TOOL_CALL"


class Candidate(WireModel):
    """One answer of a response."""

    content: Content | None = None
    finish_reason: str | None = None
    finish_message: str | None = None
    index: int | None = None
    safety_ratings: list[SafetyRating] | None = None
    citation_metadata: CitationMetadata | None = None
    grounding_metadata: GroundingMetadata | None = None


class PromptFeedback(WireModel):
    """Why a prompt was blocked, if it was."""

    block_reason: str | None = None
    safety_ratings: list[SafetyRating] | None = None


class GenerateContentResponse(WireModel):
    """A whole response, or one chunk of a stream."""

    candidates: list[Candidate] | None = None
    prompt_feedback: PromptFeedback | None = None
    usage_metadata: UsageMetadata | None = None
    model_version: str | None = None
    response_id: str | None = None


class CountTokensResponse(WireModel):
    """How many tokens contents take."""

    total_tokens: int = 0


class EmbedContentResponse(WireModel):
    """Embedding vectors."""

    values: list[float] = Field(default_factory=list)


class ModelInfo(WireModel):
    """A model a provider offers, with its limits."""

    name: str
    display_name: str | None = None
    input_token_limit: int | None = None
    output_token_limit: int | None = None
