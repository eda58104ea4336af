"""Request and response bodies of the HTTP API."""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

ContextValue = str | int | float | bool


class HistoryMessage(BaseModel):
    """One earlier turn of a conversation the client keeps."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str = Field(max_length=100_000)


class ChatRequest(BaseModel):
    """Body of `POST /chat` and `POST /chat/stream`."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"message": "How do I change the tool-call limit?"},
                {
                    "message": "What does this setting do?",
                    "session_id": "5d0c1f9e-2f6c-4c1e-9d53-0b6c8f7a1e21",
                    "selected_text": "DOCENT_MAX_CONTEXT_CHARS",
                    "user_context": {"technical_level": "beginner"},
                },
            ]
        },
    )

    message: str = Field(
        validation_alias=AliasChoices("message", "query"),
        description="The user's question (`query` is accepted as an alias).",
    )
    session_id: UUID | None = Field(None, description="Continue a server-side conversation.")
    messages: list[HistoryMessage] | None = Field(
        None, max_length=100, description="Earlier turns kept by the client, oldest first."
    )
    selected_text: str | None = Field(
        None, max_length=10_000, description="Text the user highlighted on the page."
    )
    user_context: dict[str, ContextValue] | None = Field(
        None,
        max_length=20,
        description='Shapes tone and depth, e.g. {"technical_level": "beginner"}.',
    )
    top_k: int | None = Field(None, ge=1, le=20, description="Passages per search.")


class Source(BaseModel):
    n: int
    chunk_id: str
    source_file: str
    title: str
    section_title: str
    slug: str
    page_url: str
    similarity_score: float = Field(ge=0, le=1)
    content_preview: str


class Metadata(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str
    fallback_used: bool
    cached: bool
    tokens_used: int
    context_chunks: int
    retrieval_time_ms: float
    turns: int
    tool_calls: int


class ChatResponse(BaseModel):
    response: str
    response_html: str = Field(
        description="`response` rendered as sanitised HTML; `[n]` link to `#src-{query_id}-{n}`"
    )
    exit_reason: str
    retryable: bool
    session_id: str | None
    query_id: str
    timestamp: str
    execution_time_ms: float
    sources: list[Source]
    metadata: Metadata


class ErrorBody(BaseModel):
    error: str
    error_code: str
    timestamp: str
    request_id: str
    exit_reason: str | None = None


class Health(BaseModel):
    status: Literal["ok"]
    chunks: int
    provider: str
    model: str
