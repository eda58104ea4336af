"""Whether Redis answers: one log line per transition, and no waiting on it while it's down.

Every Redis call goes through `RedisHealth.call` (sync) or `acall` (async). A failure marks
Redis down and logs one warning; calls made while it is down fail at once, without touching
the network, except one probe per `retry_seconds`; the first success logs one line and
marks it up again. What a failure means (a cache bypassed, a rate limit not counted, a
session refused) is for the caller to decide: see "Redis outage" in CONTRACT.md.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from redis.exceptions import LockError, RedisError

from docent.metrics import REDIS_ERRORS

log = logging.getLogger(__name__)
T = TypeVar("T")


class StateUnavailable(RuntimeError):
    """Redis did not answer (or is known to be down): the shared state cannot be used."""


class RedisHealth:
    """Up or down, as the last Redis call found it; shared by every user of one Redis."""

    def __init__(self, retry_seconds: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.retry_seconds = retry_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._last_try = 0.0

    @property
    def up(self) -> bool:
        with self._lock:
            return self._down_since is None

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """`fn()`, or StateUnavailable when Redis failed or is known to be down."""
        with self._watch(what):
            return fn()

    async def acall(self, what: str, fn: Callable[[], Awaitable[T]]) -> T:
        """The same as `call`, for the asyncio client."""
        with self._watch(what):
            return await fn()

    @contextmanager
    def _watch(self, what: str) -> Iterator[None]:
        self._gate(what)
        try:
            yield
        except LockError:
            raise  # Redis answered: the lock is another's or expired
        except (RedisError, OSError) as exc:
            self.failed(what, exc)
            raise StateUnavailable(what) from exc
        self.succeeded()

    def _gate(self, what: str) -> None:
        """Refuse at once while down, except for one probe every `retry_seconds`."""
        with self._lock:
            if self._down_since is None:
                return
            now = self._clock()
            if now - self._last_try >= self.retry_seconds:
                self._last_try = now
                return
        raise StateUnavailable(what)

    def failed(self, what: str, exc: BaseException) -> None:
        REDIS_ERRORS.labels(op=what.split(".")[0]).inc()
        with self._lock:
            was_up = self._down_since is None
            if was_up:
                self._down_since = self._last_try = self._clock()
        if was_up:
            log.warning(
                "redis unreachable: degraded mode (caches bypassed, rate limits not "
                "counted, server-side sessions refused with 503 SESSIONS_UNAVAILABLE)",
                extra={"category": "network", "where": what, "error_type": type(exc).__name__,
                       "detail": str(exc)[:300]},
            )

    def succeeded(self) -> None:
        with self._lock:
            was_down = self._down_since
            self._down_since = None
        if was_down is not None:
            log.info("redis reachable again: shared state restored",
                        extra={"down_seconds": round(self._clock() - was_down, 1)})
