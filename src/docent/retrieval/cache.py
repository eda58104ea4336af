"""A bounded, expiring, thread-safe cache of search results with hit/miss counters."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache

from docent.retrieval.types import Hit


@dataclass(frozen=True)
class CacheInfo:
    """Counters since the cache was built."""

    hits: int
    misses: int
    size: int
    maxsize: int


def cache_key(*parts: Any) -> str:
    """sha256 of the parts, so keys stay short whatever the query length."""
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


class ResultCache:
    """Search results by key; a maxsize of 0 disables it and empty results are never kept."""

    def __init__(self, maxsize: int, ttl_seconds: float) -> None:
        self.maxsize = maxsize
        self._cache: TTLCache[str, tuple[Hit, ...]] | None = (
            TTLCache(maxsize=maxsize, ttl=ttl_seconds) if maxsize > 0 else None
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> list[Hit] | None:
        """The cached hits, counting a hit or a miss."""
        with self._lock:
            found = self._cache.get(key) if self._cache is not None else None
            if found is None:
                self.misses += 1
                return None
            self.hits += 1
            return list(found)

    def put(self, key: str, hits: list[Hit]) -> None:
        """Keep non-empty results."""
        if not hits or self._cache is None:
            return
        with self._lock:
            self._cache[key] = tuple(hits)

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
