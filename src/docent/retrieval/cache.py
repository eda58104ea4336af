"""The search results cache: non-empty hits by a hash of the query and retriever config.

Key-building (`cache_key`) is apart from storage: the store is memory (`docent.cache`) or,
with Redis, shared by every replica (`docent.state.caches`, as JSON).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from docent.cache import CacheInfo, Counted, Store, TtlCache
from docent.retrieval.types import Chunk, Hit

__all__ = ["CacheInfo", "ResultCache", "cache_key", "decode_hits", "encode_hits"]


def cache_key(*parts: Any) -> str:
    """sha256 of the parts, so keys stay short whatever the query length."""
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


class ResultCache:
    """Search results by key; a maxsize of 0 disables it and empty results are never kept."""

    def __init__(self, maxsize: int, ttl_seconds: float,
                 store: Store[tuple[Hit, ...]] | None = None) -> None:
        if store is None or maxsize <= 0:
            store = TtlCache(maxsize, ttl_seconds)
        self._cache: Counted[tuple[Hit, ...]] = Counted("retrieval", store, maxsize)

    def get(self, key: str) -> list[Hit] | None:
        """The cached hits, counting a hit or a miss."""
        found = self._cache.get(key)
        return None if found is None else list(found)

    def put(self, key: str, hits: list[Hit]) -> None:
        """Keep non-empty results."""
        if hits:
            self._cache.put(key, tuple(hits))

    def info(self) -> CacheInfo:
        """Current counters and size."""
        return self._cache.info()


def encode_hits(hits: tuple[Hit, ...]) -> str:
    return json.dumps([[h.chunk.to_dict(), h.score] for h in hits], ensure_ascii=False)


def decode_hits(raw: bytes) -> tuple[Hit, ...]:
    return tuple(Hit(chunk=Chunk(**chunk), score=float(score)) for chunk, score in json.loads(raw))
