"""The search results cache: non-empty hits by a hash of the query and retriever config."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from docent.cache import CacheInfo, TtlCache
from docent.retrieval.types import Hit

__all__ = ["CacheInfo", "ResultCache", "cache_key"]


def cache_key(*parts: Any) -> str:
    """sha256 of the parts, so keys stay short whatever the query length."""
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


class ResultCache:
    """Search results by key; a maxsize of 0 disables it and empty results are never kept."""

    def __init__(self, maxsize: int, ttl_seconds: float) -> None:
        self._cache: TtlCache[tuple[Hit, ...]] = TtlCache(maxsize, ttl_seconds)

    def get(self, key: str) -> list[Hit] | None:
        """The cached hits, counting a hit or a miss."""
        found = self._cache.get(key)
        return None if found is None else list(found)

    def put(self, key: str, hits: list[Hit]) -> None:
        """Keep non-empty results."""
        if hits:
            self._cache.put(key, tuple(hits))

    def clear(self) -> None:
        """Forget every entry (the counters stay)."""
        self._cache.clear()

    def info(self) -> CacheInfo:
        """Current counters and size."""
        return self._cache.info()
