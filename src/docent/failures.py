"""Failures classified once: a category, a user-safe message, a retryable flag.

The user sees only the message; the full detail goes to one structured log record
(rendered as a JSON line by `docent.logs.JsonFormatter`).
"""

from __future__ import annotations

import logging
import sqlite3
import traceback
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from langchain_core.exceptions import ModelError
from pydantic import ValidationError

from docent.agent.retry import is_transient

Category = Literal["network", "database", "llm", "validation", "agent", "unknown"]

_MESSAGES: dict[Category, str] = {
    "network": "A service docent depends on could not be reached. Please try again.",
    "database": "The documentation store is having a temporary problem. Please try again.",
    "llm": "The language model could not produce an answer. Please try again.",
    "validation": "The request was not valid.",
    "agent": "Something went wrong while answering. Please try again.",
    "unknown": "Something went wrong on our side. Please try again.",
}


@dataclass(frozen=True)
class Failure:
    category: Category
    message: str
    retryable: bool


def classify(exc: BaseException, where: Category | None = None) -> Failure:
    """Sort an exception into a category; `where` says which layer it came from."""
    category: Category
    if isinstance(exc, ModelError):
        category = "llm"
    elif isinstance(exc, ValidationError | ValueError | TypeError) and where == "validation":
        category = "validation"
    elif _is_network(exc):  # before "database": Chroma's client wraps connection errors
        category = "network"
    elif isinstance(exc, sqlite3.Error) or type(exc).__module__.startswith("chromadb"):
        category = "database"
    else:
        category = where or "unknown"
    return Failure(category, _MESSAGES[category], is_transient(exc))


def _is_network(exc: BaseException | None) -> bool:
    """A connection, timeout or transport failure, itself or anywhere in its causes."""
    import httpx

    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ConnectionError | TimeoutError | OSError | httpx.TransportError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def exc_fields(exc: BaseException) -> dict[str, str]:
    """The fields a warning about a failure that docent works around carries."""
    return {"error_type": type(exc).__name__, "detail": str(exc)[:500]}


def log_failure(
    logger: logging.Logger,
    exc: BaseException,
    *,
    where: Category | None = None,
    request_id: str | None = None,
    event: str = "failure",
) -> Failure:
    """Classify `exc` and write one structured record with the full detail."""
    failure = classify(exc, where)
    logger.error(
        event,
        extra={
            "request_id": request_id,
            "category": failure.category,
            "retryable": failure.retryable,
            "error_type": type(exc).__name__,
            "detail": str(exc)[:2000],
            "stack": "".join(traceback.format_exception(exc))[-8000:],
            "at": datetime.now(UTC).isoformat(),
        },
    )
    return failure
