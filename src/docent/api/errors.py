"""Every non-200 answer: one envelope, a stable code, a user-safe message, no internals."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from docent.failures import log_failure

log = logging.getLogger(__name__)


class ApiError(Exception):
    """A request we refuse, with its HTTP status and stable code."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        quiet: bool = False,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra
        self.headers = headers or {}
        self.quiet = quiet  # a 5xx already logged elsewhere (once, not per request)


def error_response(
    request: Request,
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body = {
        "error": message,
        "error_code": code,
        "timestamp": datetime.now(UTC).isoformat(),
        "request_id": getattr(request.state, "request_id", ""),
        **extra,
    }
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        if exc.status >= 500 and not exc.quiet:
            log.error(exc.message, extra={"request_id": request.state.request_id, **exc.extra})
        return error_response(
            request, exc.status, exc.code, exc.message, exc.headers, **exc.extra
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        log.info(
            "invalid request",
            extra={"request_id": request.state.request_id, "category": "validation",
                   "retryable": False, "detail": _describe(errors)},
        )
        on_session = any("session_id" in map(str, e.get("loc", ())) for e in errors)
        code = "INVALID_SESSION" if on_session else "INVALID_QUERY"
        unparsed = any(e.get("type") == "json_invalid" for e in errors)
        message = (unparsed and _compressed(request)) or _describe(errors)
        return error_response(request, 400, code, message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # FastAPI could not parse the body (our own 400s are ApiError)
            return _unreadable_body(request, exc)
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status_code, "HTTP_ERROR")
        # Keep the exception's headers: a 405 must say which methods are allowed (Allow).
        return error_response(request, exc.status_code, code, str(exc.detail), exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        rid = getattr(request.state, "request_id", "")
        failure = log_failure(log, exc, request_id=rid, event="unhandled error")
        return error_response(request, 500, "INTERNAL_ERROR", failure.message)


def _unreadable_body(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """A body that is not UTF-8, nested too deeply or otherwise not JSON Python can read."""
    cause = type(exc.__cause__).__name__ if exc.__cause__ else str(exc.detail)
    log.info(
        "unreadable request body",
        extra={"request_id": request.state.request_id, "category": "validation",
               "retryable": False, "detail": cause},
    )
    return error_response(
        request, 400, "INVALID_QUERY",
        _compressed(request)
        or "The request body is not valid JSON (UTF-8, not nested too deeply).",
    )


def _compressed(request: Request) -> str | None:
    """Why a compressed body cannot be read: docent reads request bodies as sent."""
    encoding = request.headers.get("content-encoding", "").strip()
    if encoding.lower() in ("", "identity"):
        return None
    return (f"The request body is compressed (Content-Encoding: {encoding[:32]}): "
            "send it uncompressed.")


def _describe(errors: Any) -> str:
    """A short, safe description of what was wrong with the body (no input echoed)."""
    parts: list[str] = []
    for err in list(errors)[:5]:
        if err.get("type") == "json_invalid":
            return "The request body is not valid JSON."
        if tuple(err.get("loc", ())) == ("body",):  # no body, or no JSON object (form, list...)
            what = "missing" if err.get("type") == "missing" else "not a JSON object"
            return (f'The request body is {what}: send one such as {{"message": "..."}}, '
                    "with the header Content-Type: application/json.")
        where = _where(err.get("loc", ()))
        if err.get("type") == "extra_forbidden":
            part = f"unknown field '{where}'"
        elif err.get("type") == "missing":
            part = f"missing field '{where}'"
        else:
            part = f"'{where}': {err.get('msg', 'invalid value')}"
        if part not in parts:  # errors on several user_context keys read the same
            parts.append(part)
    return "Invalid request: " + "; ".join(parts) + "."


def _where(loc: Any) -> str:
    """The field an error is about; user_context keys are the caller's text, never echoed."""
    parts = [str(p) for p in loc if p != "body"]
    if "user_context" in parts:
        parts = parts[: parts.index("user_context") + 1]
    where = ".".join(parts) or "body"
    return where if len(where) <= 64 else where[:63] + "…"  # an unknown field named at length
