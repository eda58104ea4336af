"""The FastAPI application: lifespan-opened runtime, routes, errors, request ids."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from fastapi_offline import FastAPIOffline
from prometheus_fastapi_instrumentator import Instrumentator
from sse_starlette import EventSourceResponse, ServerSentEvent
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from docent import metrics
from docent.api.disconnect import unless_client_leaves
from docent.api.errors import ApiError, error_response, install_error_handlers
from docent.api.guard import ChatGate, Prepared, build_gate
from docent.api.limits import RequestLimits
from docent.api.openapi import install_openapi
from docent.api.request_ids import RequestIds
from docent.api.schemas import ChatRequest, ChatResponse, ErrorBody, Health
from docent.chat import run_chat, stream_chat, to_response
from docent.config import Settings
from docent.exit_reasons import ExitReason
from docent.heap import freeze_start_up_objects, thaw
from docent.ingest_status import read as read_ingest_status
from docent.runtime import Runtime
from docent.web import router as web_router

log = logging.getLogger(__name__)

# nginx's status for a request whose client closed the connection before the answer
CLIENT_CLOSED_REQUEST = 499

SSE_EXAMPLE = "\n".join(
    [
        "id: 1",
        "event: on_tool_start",
        'data: {"name": "search_docs", "input": {"query": "tool-call limit"}}',
        "",
        "id: 2",
        "event: on_tool_end",
        'data: {"name": "search_docs", "output": {"results": 5, "sources": []}}',
        "",
        "id: 3",
        "event: on_chat_model_stream",
        'data: {"content": "Set"}',
        "",
        "id: 9",
        "event: on_chain_end",
        'data: {"response": "...", "exit_reason": "COMPLETED", "sources": []}',
        "",
    ]
)
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "EMPTY_QUERY, QUERY_TOO_LONG, INVALID_QUERY, "
          "INVALID_SESSION"},
    413: {"model": ErrorBody, "description": "BODY_TOO_LARGE (over DOCENT_MAX_BODY_BYTES)"},
    429: {"model": ErrorBody, "description": "RATE_LIMITED (see the Retry-After header)"},
    500: {"model": ErrorBody, "description": "INTERNAL_ERROR"},
    503: {"model": ErrorBody, "description": "SERVER_BUSY (every session is mid-turn), "
          "SESSIONS_UNAVAILABLE (Redis is down; see the Retry-After header)"},
}
SESSIONS_UNAVAILABLE_TEXT = (
    "Conversations are unavailable for a moment, so I can't continue this one right now. "
    "Please try again in a moment."
)


STORE_CHECK_TIMEOUT = 2.0  # seconds /health and /ready wait for the chunk count


# Async, so FastAPI calls them on the event loop instead of in a worker thread.
async def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


async def get_gate(request: Request) -> ChatGate:
    return request.app.state.gate


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
GateDep = Annotated[ChatGate, Depends(get_gate)]


def create_app(settings: Settings, build: Callable[[Settings], Runtime]) -> FastAPI:
    """An app whose runtime comes from `build(settings)`, called once at start-up."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = build(settings)
        # So the first questions don't pay for loading the model, the indexes and more.
        await asyncio.to_thread(runtime.warm_up)
        await _warn_if_empty(runtime)
        freeze_start_up_objects()  # full collections no longer scan them (docent/heap.py)
        app.state.runtime = runtime
        app.state.gate = build_gate(settings, runtime.shared)
        app.state.chunks_seen = 0
        yield
        thaw()
        runtime.close()
        if runtime.shared is not None:
            await runtime.shared.aclose()

    # FastAPIOffline: /docs and /redoc load Swagger UI and ReDoc from the assets the
    # fastapi-offline package ships, not from a CDN, so they work offline.
    app = FastAPIOffline(
        title="docent",
        summary="Answers questions from your documentation, with citations.",
        lifespan=lifespan,
    )
    install_openapi(app, settings, SSE_EXAMPLE)
    install_error_handlers(app)
    # Innermost of the middlewares: the body is capped and read before the app parses it.
    app.add_middleware(RequestLimits, max_body_bytes=settings.max_body_bytes)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["Content-Type", "X-Request-ID"],
            expose_headers=["X-Request-ID", "Retry-After"],
        )

    app.add_middleware(RequestIds)

    if settings.metrics_enabled:  # outside the limits, so refused requests are timed too
        Instrumentator(excluded_handlers=["/metrics"]).add(metrics.observe_request).instrument(
            app
        )

    if settings.trusted_proxies:  # outermost: every check sees the client it names
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)

    @app.post("/chat", response_model=ChatResponse, responses=_ERRORS)
    async def chat(
        body: ChatRequest, request: Request, runtime: RuntimeDep, gate: GateDep
    ) -> dict[str, Any] | Response:
        """Answer one question from the docs, with citations and an exit reason."""
        prepared = await gate.admit(body, request)
        async with prepared.hold() as turn:
            result = await unless_client_leaves(request, run_chat(runtime, turn))
            if result is None:  # nobody reads this: the status is for the request metrics
                metrics.count_abandoned()
                log.info("client left before its answer; run cancelled",
                         extra={"request_id": turn.query_id})
                return Response(status_code=CLIENT_CLOSED_REQUEST)
            await prepared.finish(result)
        return result

    @app.post(
        "/chat/stream",
        responses={
            200: {
                "content": {"text/event-stream": {"example": SSE_EXAMPLE}},
                "description": "Server-Sent Events; the wire format is in CONTRACT.md",
            },
            **_ERRORS,
        },
    )
    async def chat_stream(
        body: ChatRequest, request: Request, runtime: RuntimeDep, gate: GateDep
    ) -> EventSourceResponse:
        """The same answer as Server-Sent Events: tokens, tool events, then `on_chain_end`."""
        prepared = await gate.admit(body, request)
        return EventSourceResponse(
            _frames(runtime, prepared), ping=runtime.settings.sse_ping_seconds,
            ping_message_factory=_ping,
        )

    @app.get("/health", response_model=Health)
    async def health(runtime: RuntimeDep) -> dict[str, Any]:
        """Liveness, with the number of indexed chunks and the model in use.

        Up whatever the store does: when it doesn't answer (quickly), `chunks` is the
        last count seen; `/ready` is the check that reports the store.
        """
        try:
            app.state.chunks_seen = await _count_chunks(runtime)
        except Exception:  # noqa: BLE001 - the store's state is /ready's to report
            pass
        return {
            "status": "ok",
            "chunks": app.state.chunks_seen,
            "provider": runtime.settings.effective_provider,
            "model": runtime.model_id,
        }

    @app.get("/ready", responses={503: {"model": ErrorBody, "description": "NOT_READY"}})
    async def ready(request: Request, runtime: RuntimeDep) -> JSONResponse:
        """Readiness: the store answers, chunks are indexed, a model chain is configured."""
        checks: dict[str, Any] = {"models": runtime.settings.provider_chain}
        try:
            checks["chunks"] = await _count_chunks(runtime)
            checks["store"] = "ok"
        except Exception:  # noqa: BLE001 - reported as a failed check (a probe polls: no log line)
            checks["store"], checks["chunks"] = "unreachable", 0
        if runtime.shared is not None:
            checks["redis"] = "ok" if await runtime.shared.ping() else "unreachable"
        if checks["store"] == "ok" and checks["chunks"] > 0 and checks["models"]:
            # Every replica shares the one Redis: taking them all out of the balancer would
            # stop what still works without it (CONTRACT.md, "Redis outage").
            status = "degraded" if checks.get("redis") == "unreachable" else "ready"
            return JSONResponse({"status": status, "checks": checks})
        return error_response(
            request, 503, "NOT_READY", "docent is not ready to answer yet.", checks=checks
        )

    if settings.metrics_enabled:

        @app.get("/metrics", include_in_schema=False)
        async def prometheus_metrics(runtime: RuntimeDep) -> Response:
            """Prometheus text format: counters of every worker, gauges read now."""
            return Response(await _scrape(app, runtime), media_type=metrics.CONTENT_TYPE)

    app.include_router(web_router)
    return app


async def _frames(runtime: Runtime, prepared: Prepared) -> AsyncIterator[dict[str, str]]:
    n = 0
    async with AsyncExitStack() as stack:
        try:
            turn = await stack.enter_async_context(prepared.hold())
        except ApiError:  # Redis went away since admission: the stream has begun, so the
            # terminal frame says so (CONTRACT.md, "Redis outage")
            yield {"event": "on_chain_end", "id": "1",
                   "data": json.dumps(_sessions_unavailable(runtime, prepared))}
            return
        async for event, data in stream_chat(runtime, turn):
            if event == "on_chain_end":
                await prepared.finish(data)
            n += 1
            yield {"event": event, "id": str(n), "data": json.dumps(data)}


def _sessions_unavailable(runtime: Runtime, prepared: Prepared) -> dict[str, Any]:
    """The terminal response of a stream whose session could not be held."""
    state = {"exit_reason": ExitReason.LLM_GENERATION_FAILURE, "retryable": True,
             "response": SESSIONS_UNAVAILABLE_TEXT, "error_code": "SESSIONS_UNAVAILABLE"}
    result = to_response(state, prepared.turn, time.perf_counter(), runtime.model_id)
    if prepared.session is not None:
        result["session_id"] = prepared.session.id
        result["metadata"]["session_status"] = prepared.status
    return result


async def _scrape(app: FastAPI, runtime: Runtime) -> bytes:
    """The exposition, with the gauges of shared things read now."""
    try:
        app.state.chunks_seen = await _count_chunks(runtime)
    except Exception:  # noqa: BLE001 - the last count seen; /ready reports the store
        pass
    rows: list[metrics.Row] = [("docent_index_chunks", "Chunks in the index (the last count "
                                "seen when the store did not answer).",
                                float(app.state.chunks_seen), {})]
    shared = runtime.shared
    if shared is not None:
        up = await shared.ping()
        rows.append(("docent_redis_up", "1 if Redis answered the scrape's ping, else 0.",
                     float(up), {}))
    status = await asyncio.to_thread(read_ingest_status, runtime.settings, shared)
    if status is not None:
        rows += status.gauges()
    return metrics.exposition(rows)


async def _warn_if_empty(runtime: Runtime) -> None:
    """One warning at start-up when nothing is indexed: every answer would be the refusal,
    and an operator who forgot `docent ingest` (or pointed at another data dir) should
    not have to find out from the answers."""
    try:
        empty = await asyncio.wait_for(asyncio.to_thread(runtime.nothing_indexed),
                                       STORE_CHECK_TIMEOUT)
    except TimeoutError:  # a store this slow is /ready's to report
        return
    if empty:
        log.warning("the index is empty: every question gets the refusal until `docent ingest` "
                    "runs with this server's DOCENT_DATA_DIR (or Chroma collection)")


async def _count_chunks(runtime: Runtime) -> int:
    """The store's chunk count, off the event loop; TimeoutError after STORE_CHECK_TIMEOUT."""
    return await asyncio.wait_for(asyncio.to_thread(runtime.retriever.count), STORE_CHECK_TIMEOUT)


def _ping() -> ServerSentEvent:
    """The keep-alive comment, exactly `: ping` (sse-starlette's default adds a timestamp)."""
    return ServerSentEvent(comment="ping")
