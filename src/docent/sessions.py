"""Server-side conversations: expiring, a sliding window of turns, one turn at a time.

`SessionStore` is the interface; `InMemorySessions` (here) keeps them in this process,
`docent.state.sessions.RedisSessions` in the Redis every replica shares. Nothing here is
ever written to disk.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Literal, Protocol

SessionStatus = Literal["new", "continued", "restarted"]
Turn = tuple[str, str]  # (user message, assistant answer)
History = list[tuple[Literal["user", "assistant"], str]]


@dataclass
class SessionRef:
    """A session as a store hands it out: its id (a store may keep more)."""

    id: str


@dataclass
class Session(SessionRef):
    """One conversation in memory: its most recent turns, last use and turn lock."""

    turns: deque[Turn] = field(default_factory=deque)
    last_active: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def history(self) -> History:
        return as_history(self.turns)


def as_history(turns: Iterable[Turn]) -> History:
    """Turns as alternating user and assistant messages, oldest first."""
    out: History = []
    for question, answer in turns:
        out += [("user", question), ("assistant", answer)]
    return out


class SessionStore(Protocol):
    async def open(self, session_id: str | None) -> tuple[SessionRef, SessionStatus]:
        """The live session for `session_id`, or a fresh one; raises `SessionsFull`."""
        ...

    def hold(self, session: SessionRef) -> AbstractAsyncContextManager[History]:
        """Hold the session for a whole turn (turns never interleave); yields its history."""
        ...

    async def record(self, session: SessionRef, question: str, answer: str) -> None:
        """Append a finished turn (called while holding the session)."""
        ...


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

    async def open(self, session_id: str | None) -> tuple[Session, SessionStatus]:
        """The live session for `session_id`, or a fresh one (under the same id if given)."""
        return self.open_now(session_id)

    def open_now(self, session_id: str | None) -> tuple[Session, SessionStatus]:
        """`open`, without awaiting: nothing in memory needs to wait."""
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

    @asynccontextmanager
    async def hold(self, session: SessionRef) -> AsyncIterator[History]:
        assert isinstance(session, Session)
        async with session.lock:
            yield session.history()

    async def record(self, session: SessionRef, question: str, answer: str) -> None:
        assert isinstance(session, Session)
        self.record_now(session, question, answer)

    def record_now(self, session: Session, question: str, answer: str) -> None:
        """`record`, without awaiting."""
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

