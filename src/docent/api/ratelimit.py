"""Request limits: per session per minute, per client address per hour.

`RateLimits` is what the gate asks; `MemoryRateLimits` (here) counts in this process with
O(1) sliding windows, `docent.state.ratelimits.RedisRateLimits` counts in the Redis every
replica shares, with the `limits` library. In memory the hand-written window stays:
`limits`' in-memory storage sweeps every key in the background on each hit (measured in
`bench/ratelimit_memory.py`), which a flood of distinct addresses, the case the per-client
limit is for, would turn into work per request that grows with the flood.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Protocol


class RateLimits(Protocol):
    """Waits in seconds (0: go ahead) for a client address and a session."""

    async def client_wait(self, client: str) -> float:
        """Seconds before `client` may send again; counts nothing."""
        ...

    async def session_wait(self, session: str) -> float:
        """Seconds before `session` may send again; counts nothing."""
        ...

    async def record(self, client: str, session: str | None) -> float:
        """Count one admitted request against both limits; if a concurrent request took
        the last slot meanwhile, count nothing (or, on Redis, only the client's) and return
        the wait instead of 0."""
        ...


class MemoryRateLimits:
    """Both limits in this process's memory."""

    def __init__(self, per_session_minute: int, per_client_hour: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_session = SlidingWindow(per_session_minute, 60.0, clock)
        self.per_client = SlidingWindow(per_client_hour, 3600.0, clock)

    async def client_wait(self, client: str) -> float:
        return self.per_client.retry_after(client)

    async def session_wait(self, session: str) -> float:
        return self.per_session.retry_after(session)

    async def record(self, client: str, session: str | None) -> float:
        # No await between the checks and the counts: atomic on the event loop.
        wait = self.per_client.retry_after(client)
        if session is not None:
            wait = max(wait, self.per_session.retry_after(session))
        if wait:
            return wait
        self.per_client.record(client)
        if session is not None:
            self.per_session.record(session)
        return 0.0


class SlidingWindow:
    """At most `limit` events per `window` seconds for each key.

    Keys are kept least recently used first, so the ones idle for a whole window are
    dropped from the front as new events arrive: O(1) per event, and memory bounded by the
    keys active within one window (not by every client ever seen).
    """

    def __init__(
        self, limit: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.window, self._clock = limit, window, clock
        self._events: OrderedDict[str, deque[float]] = OrderedDict()

    def retry_after(self, key: str) -> float:
        """0 if one more event is allowed now, else the seconds until it would be."""
        now = self._clock()
        events = self._events.get(key)
        if not events:
            return 0.0
        while events and now - events[0] >= self.window:
            events.popleft()
        if len(events) < self.limit:
            return 0.0
        return float(max(1, math.ceil(self.window - (now - events[0]))))

    def record(self, key: str) -> None:
        """Count one event (only for requests that were let through)."""
        now = self._clock()
        self._events.setdefault(key, deque()).append(now)
        self._events.move_to_end(key)
        while self._events:
            oldest = next(iter(self._events.values()))
            if oldest and now - oldest[-1] < self.window:
                return
            self._events.popitem(last=False)

    def __len__(self) -> int:
        return len(self._events)
