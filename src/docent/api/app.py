"""The FastAPI application: lifespan-opened runtime, routes, errors, request ids."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from sse_starlette import EventSourceResponse

from docent.api.errors import ApiError, install_error_handlers
from docent.api.schemas import ChatRequest, ChatResponse, ErrorBody, Health
from docent.chat import ChatTurn, run_chat, stream_chat
from docent.exit_reasons import ExitReason
from docent.runtime import Runtime

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "EMPTY_QUERY, QUERY_TOO_LONG or INVALID_QUERY"},
    500: {"model": ErrorBody, "description": "INTERNAL_ERROR"},
}


def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def create_app(build: Callable[[], Runtime]) -> FastAPI:
    """An app whose runtime comes from `build`, called once at start-up."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.runtime = build()
        yield

    app = FastAPI(
        title="docent",
        summary="Answers questions from your documentation, with citations.",
        lifespan=lifespan,
    )
    install_error_handlers(app)

    @app.middleware("http")
    async def request_id(request: Request, call_next: Any) -> Any:
        request.state.query_id = f"req-{uuid.uuid4()}"
        rid = request.headers.get("x-request-id", "")[:128] or request.state.query_id
        request.state.request_id = rid
        response = await call_next(request)
        response.headers["X-Request-ID"] = rid
        return response

    @app.post("/chat", response_model=ChatResponse, responses=_ERRORS)
    async def chat(body: ChatRequest, request: Request, runtime: RuntimeDep) -> dict[str, Any]:
        """Answer one question from the docs, with citations and an exit reason."""
        return await run_chat(runtime, _turn(body, request, runtime))

    @app.post(
        "/chat/stream",
        responses={
            200: {"content": {"text/event-stream": {}}, "description": "SSE, see CONTRACT.md"},
            **_ERRORS,
        },
    )
    async def chat_stream(
        body: ChatRequest, request: Request, runtime: RuntimeDep
    ) -> EventSourceResponse:
        """The same answer as Server-Sent Events: tokens, tool events, then `on_chain_end`."""
        turn = _turn(body, request, runtime)

        async def frames() -> AsyncIterator[dict[str, str]]:
            n = 0
            async for event, data in stream_chat(runtime, turn):
                n += 1
                yield {"event": event, "id": str(n), "data": json.dumps(data)}

        return EventSourceResponse(frames(), ping=runtime.settings.sse_ping_seconds)

    @app.get("/health", response_model=Health)
    async def health(runtime: RuntimeDep) -> dict[str, Any]:
        """Liveness, with the number of indexed chunks and the model in use."""
        return {
            "status": "ok",
            "chunks": runtime.retriever.count(),
            "provider": runtime.settings.effective_provider,
            "model": runtime.model_id,
        }

    return app


def _turn(body: ChatRequest, request: Request, runtime: Runtime) -> ChatTurn:
    if not body.message.strip():
        raise ApiError(
            400,
            "EMPTY_QUERY",
            "Please type a question.",
            exit_reason=ExitReason.EMPTY_INPUT.value,
        )
    limit = runtime.settings.max_message_chars
    if len(body.message) > limit:
        raise ApiError(400, "QUERY_TOO_LONG", f"The question is longer than {limit} characters.")
    history = [(m.role, m.content) for m in body.messages]
    return ChatTurn(
        message=body.message,
        history=history,
        top_k=body.top_k,
        query_id=request.state.query_id,
    )
