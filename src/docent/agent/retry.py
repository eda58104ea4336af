"""Which failures are worth retrying, and the tenacity policy that retries them."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from langchain_core.exceptions import ModelError, ModelTimeoutError
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

_TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})


def is_transient(exc: BaseException) -> bool:
    """True for failures that may pass on their own: rate limits, timeouts, 5xx, network."""
    if isinstance(exc, ModelError):
        return bool(exc.is_retryable)
    if isinstance(exc, TimeoutError | ConnectionError | sqlite3.OperationalError):
        return True
    status = getattr(exc, "status_code", None) or getattr(exc, "code", None)
    if isinstance(status, int) and status in _TRANSIENT_STATUS:
        return True
    return _is_httpx(exc, "TransportError")


def is_timeout(exc: BaseException) -> bool:
    """True for a call that ran out of time: its own deadline or the client's timeout."""
    if isinstance(exc, TimeoutError | ModelTimeoutError):
        return True
    return _is_httpx(exc, "TimeoutException")


def _is_httpx(exc: BaseException, kind: str) -> bool:
    try:
        import httpx
    except ImportError:  # pragma: no cover - httpx ships with chromadb
        return False
    return isinstance(exc, getattr(httpx, kind))


def is_retryable_model_error(exc: BaseException) -> bool:
    """Transient, and not a timeout: a model that timed out once is not waited for again
    (a hung single-slot server stays busy with the abandoned call), the next provider is."""
    return is_transient(exc) and not is_timeout(exc)


def retrying(
    retries: int,
    max_wait: float,
    on_retry: Callable[[Any], None] | None = None,
    retry_if: Callable[[BaseException], bool] = is_transient,
) -> AsyncRetrying:
    """Exponential backoff with jitter, `retries` extra attempts, `retry_if` errors only
    (transient ones by default)."""
    return AsyncRetrying(
        stop=stop_after_attempt(retries + 1),
        wait=wait_exponential_jitter(initial=0.5, max=max_wait, jitter=min(1.0, max_wait)),
        retry=retry_if_exception(retry_if),
        before_sleep=on_retry,
        reraise=True,
    )
