"""Sessions in Redis: every replica continues every conversation.

The same contract as `docent.sessions.InMemorySessions` (CONTRACT.md §5, Sessions), kept
by Redis itself so replicas never disagree:

- `<prefix>sessions`, a sorted set of session ids scored by last use in microseconds
  (Redis's clock, so replicas' clocks don't matter; each use scores above every earlier
  one, so two uses within one microsecond keep their order): expiry pops idle ids off its
  low end, at most `_SWEEP` per call, so nothing scans every session;
- `<prefix>session:<id>`, a list of the session's turns (JSON), trimmed to the turn window,
  expiring with the session;
- `<prefix>session:<id>:lock`, the turn lock (redis-py's `Lock`), held for a whole turn
  and renewed while it runs, so a replica that dies mid-turn frees it within
  `DOCENT_SESSION_LOCK_SECONDS`. A session whose lock is held is never expired or evicted.

Opening and recording are Lua scripts: each is one atomic step whichever replica runs it.
The scripts touch keys they compute from the prefix, so this needs one Redis (a primary,
with replicas or Sentinel if wanted), not Redis Cluster.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from redis.asyncio.lock import Lock
from redis.exceptions import LockError, RedisError

from docent.sessions import (
    History,
    SessionRef,
    SessionsFull,
    SessionStatus,
    as_history,
)
from docent.state.client import SharedState
from docent.state.health import StateUnavailable

log = logging.getLogger(__name__)

_SWEEP = 100  # expired ids dropped per call at most: a call never blocks Redis for long

# Now, in microseconds, above the score of the last use (KEYS[1] is the index).
_CLOCK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if #last > 0 and tonumber(last[2]) >= now then now = tonumber(last[2]) + 1 end
"""

# KEYS: index. ARGV: id, ttl µs, max sessions, prefix, expired ids dropped at most.
# Returns "continued", "created" or "full".
_OPEN = _CLOCK + """
local index, id, ttl, cap, prefix = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]),
  ARGV[4]
local ttl_ms = math.ceil(ttl / 1000)
local function locked(sid) return redis.call('EXISTS', prefix .. sid .. ':lock') == 1 end
local function drop(sid) redis.call('ZREM', index, sid); redis.call('DEL', prefix .. sid) end
local function touch(sid)
  redis.call('ZADD', index, now, sid); redis.call('PEXPIRE', prefix .. sid, ttl_ms)
end
for _ = 1, tonumber(ARGV[5]) do
  local oldest = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
  if #oldest == 0 or now - tonumber(oldest[2]) <= ttl then break end
  if locked(oldest[1]) then touch(oldest[1]) else drop(oldest[1]) end
end
local seen = redis.call('ZSCORE', index, id)
if seen then
  if now - tonumber(seen) <= ttl or locked(id) then touch(id); return 'continued' end
  drop(id)
end
redis.call('DEL', prefix .. id)
local n = redis.call('ZCARD', index)
for _ = 1, n do
  if n < cap then break end
  local oldest = redis.call('ZRANGE', index, 0, 0)[1]
  if locked(oldest) then touch(oldest) else drop(oldest) end
  n = redis.call('ZCARD', index)
end
if n >= cap then return 'full' end
redis.call('ZADD', index, now, id)
return 'created'
"""

# KEYS: index. ARGV: id, turn JSON, turns kept, ttl µs, prefix. A session evicted meanwhile
# is kept nowhere (as in memory).
_RECORD = _CLOCK + """
local index, id, turn, keep, ttl, prefix = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]),
  tonumber(ARGV[4]), ARGV[5]
if not redis.call('ZSCORE', index, id) then return 0 end
local key = prefix .. id
redis.call('RPUSH', key, turn)
redis.call('LTRIM', key, -keep, -1)
redis.call('PEXPIRE', key, math.ceil(ttl / 1000))
redis.call('ZADD', index, now, id)
return 1
"""


class RedisSessions:
    """`SessionStore` on Redis. Raises `StateUnavailable` when Redis does not answer."""

    def __init__(self, state: SharedState, ttl: float, max_turns: int, max_sessions: int,
                 lock_seconds: float) -> None:
        self._state = state
        self._ttl_us = int(ttl * 1_000_000)
        self._max_turns, self._max_sessions = max_turns, max_sessions
        self._lock_seconds = lock_seconds
        self._index = state.key("sessions")
        self._prefix = state.key("session:")
        self._open = state.aio.register_script(_OPEN)
        self._record = state.aio.register_script(_RECORD)

    async def open(self, session_id: str | None) -> tuple[SessionRef, SessionStatus]:
        sid = session_id or str(uuid.uuid4())
        args: list[Any] = [sid, self._ttl_us, self._max_sessions, self._prefix, _SWEEP]
        found = await self._state.health.acall(
            "sessions.open", lambda: self._open(keys=[self._index], args=args)
        )
        outcome = found.decode() if isinstance(found, bytes) else str(found)
        if outcome == "full":
            raise SessionsFull(f"all {self._max_sessions} sessions are mid-turn")
        if outcome == "continued":
            return SessionRef(sid), "continued"
        return SessionRef(sid), "restarted" if session_id else "new"

    @asynccontextmanager
    async def hold(self, session: SessionRef) -> AsyncIterator[History]:
        lock = Lock(self._state.aio, self._prefix + session.id + ":lock",
                    timeout=self._lock_seconds, sleep=0.05, thread_local=False)
        await self._state.health.acall("sessions.lock", lock.acquire)
        renew = asyncio.create_task(self._renew(lock))
        try:
            raw = await self._state.health.acall(
                "sessions.history", lambda: self._state.aio.lrange(self._prefix + session.id, 0, -1)
            )
            yield as_history(tuple(json.loads(item)) for item in raw)
        finally:
            renew.cancel()  # not awaited: waiting here could swallow our own cancellation
            await self._release(lock)

    async def record(self, session: SessionRef, question: str, answer: str) -> None:
        turn = json.dumps([question, answer], ensure_ascii=False)
        args: list[Any] = [session.id, turn, self._max_turns, self._ttl_us, self._prefix]
        await self._state.health.acall(
            "sessions.record", lambda: self._record(keys=[self._index], args=args)
        )

    async def _renew(self, lock: Lock) -> None:
        """Keep the lock while the turn runs (a stream may outlast `lock_seconds`)."""
        while True:
            await asyncio.sleep(self._lock_seconds / 3)
            try:
                await self._state.health.acall("sessions.renew", lock.reacquire)
            except StateUnavailable:
                pass  # Redis is down: logged once by health; the lock may expire meanwhile
            except LockError:  # it expired already: another turn may have begun
                log.warning("a session lock expired mid-turn")

    async def _release(self, lock: Lock) -> None:
        """Let the next turn in; when Redis is gone, the lock expires by itself."""
        try:
            await lock.release()
        except (LockError, RedisError, OSError) as exc:
            log.info("session lock not released (it expires by itself)",
                     extra={"error_type": type(exc).__name__})

