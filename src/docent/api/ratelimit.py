"""Sliding-window request limits: per session per minute, per client address per hour."""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable


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
