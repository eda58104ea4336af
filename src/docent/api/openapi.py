"""The OpenAPI document, shaped so that generated clients work.

FastAPI's own document promises things the server never does: a 422 for invalid bodies
(docent answers 400 with its error envelope), and an `application/json` body beside the
event stream of `/chat/stream` (it only ever sends `text/event-stream`). Generators such
as openapi-python-client build on those promises and fail. This module rewrites the
document once, when it is first asked for.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from docent.config import Settings

STREAM_PATH = "/chat/stream"
_FASTAPI_VALIDATION = ("HTTPValidationError", "ValidationError")


def install_openapi(app: FastAPI, settings: Settings, sse_example: str) -> None:
    """Serve the corrected document at `app.openapi_url`."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, summary=app.summary,
                description=app.description, routes=app.routes,
            )
            _drop_phantom_422(schema)
            _stream_is_only_event_stream(schema, sse_example)
            _message_length(schema, settings.max_message_chars)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _drop_phantom_422(schema: dict[str, Any]) -> None:
    """Invalid bodies are answered 400 INVALID_QUERY (CONTRACT.md §5), never 422."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            operation.get("responses", {}).pop("422", None)
    components = schema.get("components", {}).get("schemas", {})
    for name in _FASTAPI_VALIDATION:
        components.pop(name, None)


def _stream_is_only_event_stream(schema: dict[str, Any], example: str) -> None:
    ok = schema["paths"][STREAM_PATH]["post"]["responses"]["200"]
    ok["content"] = {"text/event-stream": {"schema": {"type": "string"}, "example": example}}


def _message_length(schema: dict[str, Any], max_chars: int) -> None:
    """The question's limits, as the server checks them (its own codes: EMPTY_QUERY,
    QUERY_TOO_LONG), so they live in the document rather than in the body model."""
    message = schema["components"]["schemas"]["ChatRequest"]["properties"]["message"]
    message.update(minLength=1, maxLength=max_chars)
