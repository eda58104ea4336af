"""Cache stores in Redis, shared by every replica: a value per key, as JSON, with a TTL.

Each entry expires after the cache's TTL, and a cache holds at most `maxsize` entries
(`DOCENT_*_CACHE_SIZE`, counted over all replicas): a sorted set indexes the entries by
when they were written, and a write past the size drops the oldest ones, in the same Lua
script, so the caches can't crowd sessions and rate limits out of Redis's memory. While
Redis is down every lookup is a miss and nothing is kept: the caches are bypassed, answers
are not affected. Values are JSON, never pickles: what Redis holds can't run code in
docent, and an entry docent can't read is a miss.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from docent.state.client import SharedState
from docent.state.health import StateUnavailable

V = TypeVar("V")
_UNREADABLE = (ValueError, KeyError, TypeError, IndexError)

# KEYS: the cache's index, the entry. ARGV: value, ttl ms, maxsize.
_PUT = """
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], tonumber(t[1]) * 1000000 + tonumber(t[2]), KEYS[2])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if over > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[1], 0, over - 1)) do
    redis.call('DEL', old)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
end
"""


class _Codec(Generic[V]):
    def __init__(self, state: SharedState, name: str, ttl: float, maxsize: int,
                 encode: Callable[[V], str], decode: Callable[[bytes], V]) -> None:
        self._state, self._name, self._maxsize = state, name, maxsize
        self._ttl_ms = max(1, int(ttl * 1000))
        self._encode, self._decode = encode, decode
        self._index = state.key("cache", name)

    def _key(self, key: str) -> str:
        return self._state.key("cache", self._name, key)

    def _put_args(self, key: str, value: V) -> dict[str, Any]:
        return {"keys": [self._index, self._key(key)],
                "args": [self._encode(value), self._ttl_ms, self._maxsize]}

    def _read(self, raw: bytes | str | None) -> V | None:
        if raw is None:
            return None
        try:
            return self._decode(raw.encode() if isinstance(raw, str) else raw)
        except _UNREADABLE:
            return None  # written by another version: a miss, overwritten on the next put


class RedisStore(_Codec[V]):
    """For code in worker threads (the retrieval cache, searches run in the CPU pool)."""

    def get(self, key: str) -> V | None:
        try:
            raw = self._state.health.call(
                f"cache.{self._name}.get", lambda: self._state.sync.get(self._key(key))
            )
        except StateUnavailable:
            return None
        return self._read(raw)

    def put(self, key: str, value: V) -> None:
        put = self._state.sync.register_script(_PUT)
        try:
            self._state.health.call(f"cache.{self._name}.put",
                                    lambda: put(**self._put_args(key, value)))
        except StateUnavailable:
            pass

    def __len__(self) -> int:
        return 0  # shared by every replica: not this process's to count


class AsyncRedisStore(_Codec[V]):
    """For code on the event loop (the reply cache, in the graph's `llm` node)."""

    async def get(self, key: str) -> V | None:
        try:
            raw = await self._state.health.acall(
                f"cache.{self._name}.get", lambda: self._state.aio.get(self._key(key))
            )
        except StateUnavailable:
            return None
        return self._read(raw)

    async def put(self, key: str, value: V) -> None:
        put = self._state.aio.register_script(_PUT)
        try:
            await self._state.health.acall(f"cache.{self._name}.put",
                                           lambda: put(**self._put_args(key, value)))
        except StateUnavailable:
            pass
