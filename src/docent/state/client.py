"""The Redis connection of one docent process: a sync client, an asyncio one, their health.

Built once (`docent.runtime.build_runtime`) when `DOCENT_REDIS_URL` is set. Nothing
connects until the first call. Short socket timeouts, and no retries in the client: a Redis
that does not answer must cost a request milliseconds, not seconds (see `health.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio

from docent.config import Settings
from docent.state.health import RedisHealth


@dataclass
class SharedState:
    """Clients of the one Redis every replica uses, and its keys' prefix."""

    url: str
    prefix: str
    timeout: float
    health: RedisHealth = field(default_factory=RedisHealth)
    _sync: redis.Redis | None = None
    _async: redis.asyncio.Redis | None = None

    @property
    def sync(self) -> redis.Redis:
        """For code that runs in worker threads (the retrieval cache)."""
        if self._sync is None:
            self._sync = redis.Redis.from_url(self.url, **self._options())
        return self._sync

    @property
    def aio(self) -> redis.asyncio.Redis:
        """For code on the event loop; made on first use, inside the loop that uses it."""
        if self._async is None:
            self._async = redis.asyncio.Redis.from_url(self.url, **self._options())
        return self._async

    def key(self, *parts: str) -> str:
        """A key in this deployment's namespace, e.g. `docent:session:<id>`."""
        return self.prefix + ":".join(parts)

    async def ping(self) -> bool:
        """Whether Redis answers now (for /ready); records the outcome in `health`."""
        try:
            await self.health.acall("ping", self.aio.ping)
        except Exception:  # noqa: BLE001 - StateUnavailable, or anything the client raised
            return False
        return True

    def close(self) -> None:
        if self._sync is not None:
            self._sync.close()

    async def aclose(self) -> None:
        if self._async is not None:
            await self._async.aclose()
            self._async = None

    def _options(self) -> dict[str, Any]:
        return {"socket_timeout": self.timeout, "socket_connect_timeout": self.timeout,
                "retry": None, "health_check_interval": 30}


def shared_state(settings: Settings) -> SharedState | None:
    """The process's Redis state, or None when `DOCENT_REDIS_URL` is not set."""
    if settings.redis_url is None:
        return None
    return SharedState(url=settings.redis_url.get_secret_value(), prefix=settings.redis_prefix,
                       timeout=settings.redis_timeout_seconds)
