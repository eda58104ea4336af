"""The caches' storage: in this process (`TtlCache`) or, with Redis, shared by replicas.

A store only keeps values; `Counted` counts its lookups (for `info()` and the
`docent_cache_lookups_total` metric). Size 0 disables a cache. Shared by the retrieval
results cache and the model reply cache; the Redis stores are in `docent.state.caches`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from cachetools import TTLCache

from docent.metrics import count_lookup

V = TypeVar("V")


@dataclass(frozen=True)
class CacheInfo:
    """Counters since the cache was built."""

    hits: int
    misses: int
    size: int
    maxsize: int


class Store(Protocol[V]):
    """Values by key, each kept for a while."""

    def get(self, key: str) -> V | None: ...

    def put(self, key: str, value: V) -> None: ...

    def __len__(self) -> int: ...


class AsyncStore(Protocol[V]):
    """A `Store` used from the event loop."""

    async def get(self, key: str) -> V | None: ...

    async def put(self, key: str, value: V) -> None: ...


class TtlCache(Generic[V]):
    """Values by key in memory, each kept for `ttl` seconds, at most `maxsize` of them."""

    def __init__(self, maxsize: int, ttl: float) -> None:
        self.maxsize = maxsize
        self._cache: TTLCache[str, V] | None = (
            TTLCache(maxsize=maxsize, ttl=ttl) if maxsize > 0 else None
        )
        self._lock = threading.Lock()

    def get(self, key: str) -> V | None:
        with self._lock:
            return self._cache.get(key) if self._cache is not None else None

    def put(self, key: str, value: V) -> None:
        if self._cache is None:
            return
        with self._lock:
            self._cache[key] = value

    def clear(self) -> None:
        with self._lock:
            if self._cache is not None:
                self._cache.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._cache) if self._cache is not None else 0


class InLoop(Generic[V]):
    """A memory store behind the `AsyncStore` interface (nothing in it ever waits)."""

    def __init__(self, store: TtlCache[V]) -> None:
        self._store = store

    async def get(self, key: str) -> V | None:
        return self._store.get(key)

    async def put(self, key: str, value: V) -> None:
        self._store.put(key, value)


class Counted(Generic[V]):
    """A store whose lookups are counted, under `name` in the metrics."""

    def __init__(self, name: str, store: Store[V], maxsize: int) -> None:
        self.name, self.maxsize = name, maxsize
        self._store = store
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: str) -> V | None:
        """The cached value, counting a hit or a miss."""
        found = self._store.get(key)
        with self._lock:
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
        if self.maxsize > 0:  # a disabled cache is not a cache that misses
            count_lookup(self.name, found is not None)
        return found

    def put(self, key: str, value: V) -> None:
        self._store.put(key, value)

    def info(self) -> CacheInfo:
        """Counters, and the entries this process can see (0 for a shared store)."""
        with self._lock:
            return CacheInfo(self.hits, self.misses, len(self._store), self.maxsize)
