"""A bounded, expiring, thread-safe cache with hit/miss counters; size 0 disables it.

Shared by the retrieval results cache and the model reply cache.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Generic, TypeVar

from cachetools import TTLCache

V = TypeVar("V")


@dataclass(frozen=True)
class CacheInfo:
    """Counters since the cache was built."""

    hits: int
    misses: int
    size: int
    maxsize: int


class TtlCache(Generic[V]):
    """Values by key, each kept for `ttl` seconds, at most `maxsize` of them."""

    def __init__(self, maxsize: int, ttl: float) -> None:
        self.maxsize = maxsize
        self._cache: TTLCache[str, V] | None = (
            TTLCache(maxsize=maxsize, ttl=ttl) if maxsize > 0 else None
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> V | None:
        """The cached value, counting a hit or a miss."""
        with self._lock:
            found = self._cache.get(key) if self._cache is not None else None
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
            return found

    def put(self, key: str, value: V) -> None:
        if self._cache is None:
            return
        with self._lock:
            self._cache[key] = value

    def clear(self) -> None:
        """Forget every entry (the counters stay)."""
        with self._lock:
            if self._cache is not None:
                self._cache.clear()

    def info(self) -> CacheInfo:
        """Current counters and size."""
        with self._lock:
            size = len(self._cache) if self._cache is not None else 0
            return CacheInfo(self.hits, self.misses, size, self.maxsize)
