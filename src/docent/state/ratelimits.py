"""Rate limits counted in Redis, across every replica, by the `limits` library.

Moving windows (a log of request times per key, `limits`' `MovingWindowRateLimiter` with
its Redis storage and Lua scripts), the same exact sliding window as in memory. The times
are the replicas' own clocks, so replicas keep them in step (NTP). While Redis is down,
limits fail open: requests are neither checked nor counted (CONTRACT.md, "Redis outage").
"""

from __future__ import annotations

import math
import time
from typing import Any

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter

from docent.state.client import SharedState
from docent.state.health import StateUnavailable


class RedisRateLimits:
    """`RateLimits` on the shared Redis; a Redis failure means no limit, never an error."""

    def __init__(self, state: SharedState, per_session_minute: int,
                 per_client_hour: int) -> None:
        self._state = state
        pool: Any = state.aio.connection_pool  # one pool: the same timeouts, no retries
        storage = RedisStorage(
            "async+" + state.url, implementation="redispy", key_prefix=state.key("limits"),
            connection_pool=pool,
        )
        self._limiter = MovingWindowRateLimiter(storage)
        self._session = RateLimitItemPerMinute(per_session_minute)
        self._client = RateLimitItemPerHour(per_client_hour)

    async def client_wait(self, client: str) -> float:
        return await self._wait(self._client, "client", client)

    async def session_wait(self, session: str) -> float:
        return await self._wait(self._session, "session", session)

    async def record(self, client: str, session: str | None) -> float:
        # Each hit is atomic in Redis; the two together are not: when another replica took
        # the session's last slot between them, the client's hit stays counted.
        if not await self._hit(self._client, "client", client):
            return await self.client_wait(client) or 1.0
        if session is not None and not await self._hit(self._session, "session", session):
            return await self.session_wait(session) or 1.0
        return 0.0

    async def _wait(self, item: RateLimitItem, kind: str, key: str) -> float:
        try:
            stats = await self._state.health.acall(
                "ratelimit.check", lambda: self._limiter.get_window_stats(item, kind, key)
            )
        except StateUnavailable:
            return 0.0  # fail open
        if stats.remaining > 0:
            return 0.0
        return float(max(1, math.ceil(stats.reset_time - time.time())))

    async def _hit(self, item: RateLimitItem, kind: str, key: str) -> bool:
        try:
            return await self._state.health.acall(
                "ratelimit.count", lambda: self._limiter.hit(item, kind, key)
            )
        except StateUnavailable:
            return True  # fail open: admitted, not counted
