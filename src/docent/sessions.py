"""Server-side conversations: in memory, expiring, a sliding window of turns.

`SessionStore` is the interface a shared store (Redis, a database) can implement later.
Nothing here is ever written to disk.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Literal, Protocol

SessionStatus = Literal["new", "continued", "restarted"]
Turn = tuple[str, str]  # (user message, assistant answer)


@dataclass
class Session:
    """One conversation: its id and its most recent turns."""

    id: str
    turns: deque[Turn]
    last_active: float
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def history(self) -> list[tuple[Literal["user", "assistant"], str]]:
        out: list[tuple[Literal["user", "assistant"], str]] = []
        for question, answer in self.turns:
            out += [("user", question), ("assistant", answer)]
        return out


class SessionStore(Protocol):
    def open(self, session_id: str | None) -> tuple[Session, SessionStatus]:
        """The live session for `session_id`, or a fresh one; raises `SessionsFull`."""
        ...

    def record(self, session: Session, question: str, answer: str) -> None: ...


class SessionsFull(RuntimeError):
    """Every session is mid-turn and the store is at its cap: nothing may be evicted."""


class InMemorySessions:
    """Sessions in an OrderedDict, least recently used first.

    Every operation is O(1) (amortised): expiry pops idle sessions off the front instead of
    scanning them all. At `max_sessions`, a new session evicts the least recently used
    idle one, even before its time is up (its next request starts afresh, `restarted`); a
    session mid-turn (its lock held) is never evicted, and when every session is mid-turn
    `open` raises `SessionsFull`.
    """

    def __init__(
        self, ttl: float, max_turns: int, clock: Callable[[], float] = time.monotonic,
        max_sessions: int = 1000,
    ) -> None:
        self._ttl, self._max_turns, self._clock = ttl, max_turns, clock
        self._max_sessions = max_sessions
        self._sessions: OrderedDict[str, Session] = OrderedDict()

    def open(self, session_id: str | None) -> tuple[Session, SessionStatus]:
        """The live session for `session_id`, or a fresh one (under the same id if given)."""
        now = self._clock()
        self._expire(now)
        session = self._sessions.get(session_id) if session_id else None
        live = session is not None and now - session.last_active <= self._ttl
        if session is not None and (live or session.lock.locked()):
            self._touch(session, now)
            return session, "continued"
        if session is not None:  # expired but not yet swept: it starts afresh
            del self._sessions[session.id]
        self._make_room(now)
        session = Session(
            id=session_id or str(uuid.uuid4()),
            turns=deque(maxlen=self._max_turns),
            last_active=now,
        )
        self._sessions[session.id] = session
        return session, "restarted" if session_id else "new"

    def record(self, session: Session, question: str, answer: str) -> None:
        session.turns.append((question, answer))
        if self._sessions.get(session.id) is session:  # an evicted one is kept nowhere
            self._touch(session, self._clock())

    def __len__(self) -> int:
        return len(self._sessions)

    def _touch(self, session: Session, now: float) -> None:
        session.last_active = now
        self._sessions.move_to_end(session.id)

    def _expire(self, now: float) -> None:
        """Drop expired sessions from the front; one mid-turn counts as used now."""
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.last_active <= self._ttl:
                return
            if oldest.lock.locked():
                self._touch(oldest, now)
            else:
                del self._sessions[oldest.id]

    def _make_room(self, now: float) -> None:
        """At the cap, evict the least recently used idle session."""
        for _ in range(len(self._sessions)):
            if len(self._sessions) < self._max_sessions:
                return
            oldest = next(iter(self._sessions.values()))
            if oldest.lock.locked():
                self._touch(oldest, now)  # in use: skip it (it is the most recent now)
            else:
                del self._sessions[oldest.id]
        if len(self._sessions) >= self._max_sessions:
            raise SessionsFull(f"all {self._max_sessions} sessions are mid-turn")


@asynccontextmanager
async def exclusive(session: Session) -> AsyncIterator[Session]:
    """Hold the session for a whole run so concurrent requests never interleave turns."""
    async with session.lock:
        yield session
