"""Sliding-window request limits: per session per minute, per client address per hour."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable


class SlidingWindow:
    """At most `limit` events per `window` seconds for each key."""

    def __init__(
        self, limit: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.window, self._clock = limit, window, clock
        self._events: dict[str, deque[float]] = {}

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
        if len(self._events) > 10_000:  # keep memory bounded under many one-off keys
            self._drop_idle(now)

    def _drop_idle(self, now: float) -> None:
        idle = [k for k, ev in self._events.items() if not ev or now - ev[-1] >= self.window]
        for key in idle:
            del self._events[key]
