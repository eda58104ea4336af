"""Request and response bodies of the HTTP API."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class HistoryMessage(BaseModel):
    """One earlier turn of a conversation the client keeps."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str = Field(max_length=100_000)


class ChatRequest(BaseModel):
    """Body of `POST /chat` and `POST /chat/stream`."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"message": "How do I change the tool-call limit?"}]},
    )

    message: str = Field(description="The user's question.")
    messages: list[HistoryMessage] = Field(
        default_factory=list, max_length=100, description="Earlier turns, oldest first."
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


class ChatResponse(BaseModel):
    response: str
    exit_reason: str
    retryable: bool
    sources: list[Source]
    query_id: str
    timestamp: str
    execution_time_ms: float
    metadata: dict[str, object]


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
