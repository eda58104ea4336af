"""Request and response bodies of the HTTP API."""

from __future__ import annotations

import json
import math
from enum import StrEnum
from typing import Annotated, Literal
from uuid import UUID

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
)

from docent.exit_reasons import ExitReason

CONTEXT_MAX_KEYS = 20
CONTEXT_KEY_CHARS = 64
CONTEXT_VALUE_CHARS = 500
CONTEXT_JSON_CHARS = 4000


def _valid_unicode(text: str) -> str:
    """Refuse lone surrogates (`"\\ud800"` in JSON): no model, log or page could encode them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return text


def _context_key(key: str) -> str:
    if len(key) > CONTEXT_KEY_CHARS:
        raise ValueError(f"keys must be at most {CONTEXT_KEY_CHARS} characters")
    return key


def _context_value(value: str | int | float | bool) -> str | int | float | bool:
    """A profile value: short valid text, a finite number or a boolean."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("numbers must be finite (no NaN or Infinity)")
    if not isinstance(value, str):
        return value
    if len(value) > CONTEXT_VALUE_CHARS:
        raise ValueError(f"string values must be at most {CONTEXT_VALUE_CHARS} characters")
    return _valid_unicode(value)


def _context_size(context: dict[str, object]) -> dict[str, object]:
    if len(json.dumps(context, ensure_ascii=False)) > CONTEXT_JSON_CHARS:
        raise ValueError(f"must be at most {CONTEXT_JSON_CHARS} characters as JSON")
    return context


# Strict types: `true` or "5" is not an integer, 5 is not a string. A length constraint goes
# before the Unicode check, so pydantic reports it as a string length.
Text = Annotated[StrictStr, AfterValidator(_valid_unicode)]
HistoryText = Annotated[
    StrictStr, StringConstraints(max_length=100_000), AfterValidator(_valid_unicode)
]
SelectedText = Annotated[
    StrictStr, StringConstraints(max_length=10_000), AfterValidator(_valid_unicode)
]
ContextKey = Annotated[Text, AfterValidator(_context_key)]
ContextValue = Annotated[
    StrictStr | StrictInt | StrictFloat | StrictBool, AfterValidator(_context_value)
]
UserContext = Annotated[
    dict[ContextKey, ContextValue],
    Field(max_length=CONTEXT_MAX_KEYS),
    AfterValidator(_context_size),
]


class HistoryMessage(BaseModel):
    """One earlier turn of a conversation the client keeps."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: HistoryText


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

    message: Text = Field(
        validation_alias=AliasChoices("message", "query"),
        description="The user's question (`query` is accepted as an alias).",
    )
    session_id: UUID | None = Field(None, description="Continue a server-side conversation.")
    messages: list[HistoryMessage] | None = Field(
        None, max_length=100, description="Earlier turns kept by the client, oldest first."
    )
    selected_text: SelectedText | None = Field(
        None, description="Text the user highlighted on the page."
    )
    user_context: UserContext | None = Field(
        None,
        description='Shapes tone and depth, e.g. {"technical_level": "beginner"}: at most '
        f"{CONTEXT_MAX_KEYS} keys of {CONTEXT_KEY_CHARS} characters, string values of "
        f"{CONTEXT_VALUE_CHARS}, {CONTEXT_JSON_CHARS} characters in all as JSON.",
    )
    top_k: StrictInt | None = Field(None, ge=1, le=20, description="Passages per search.")


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
    exit_reason: ExitReason = Field(description="How the run ended (CONTRACT.md §1).")
    retryable: bool
    session_id: str | None
    query_id: str
    timestamp: str
    execution_time_ms: float
    sources: list[Source]
    metadata: Metadata


class ErrorCode(StrEnum):
    """Every `error_code` of a non-200 answer (CONTRACT.md §5, Errors)."""

    EMPTY_QUERY = "EMPTY_QUERY"
    QUERY_TOO_LONG = "QUERY_TOO_LONG"
    INVALID_QUERY = "INVALID_QUERY"
    INVALID_SESSION = "INVALID_SESSION"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    HTTP_ERROR = "HTTP_ERROR"
    RATE_LIMITED = "RATE_LIMITED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    NOT_READY = "NOT_READY"
    BODY_TOO_LARGE = "BODY_TOO_LARGE"
    SERVER_BUSY = "SERVER_BUSY"
    SESSIONS_UNAVAILABLE = "SESSIONS_UNAVAILABLE"


class ErrorBody(BaseModel):
    error: str
    error_code: ErrorCode
    timestamp: str
    request_id: str
    exit_reason: ExitReason | None = None


class Health(BaseModel):
    status: Literal["ok"]
    chunks: int
    provider: str
    model: str
