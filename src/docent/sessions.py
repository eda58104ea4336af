"""Server-side conversations: in memory, expiring, a sliding window of turns.

`SessionStore` is the interface a shared store (Redis, a database) can implement later.
Nothing here is ever written to disk.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import deque
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
    def open(self, session_id: str | None) -> tuple[Session, SessionStatus]: ...

    def record(self, session: Session, question: str, answer: str) -> None: ...


class InMemorySessions:
    """Sessions in a dict; idle ones expire after `ttl` seconds, swept on access."""

    def __init__(
        self, ttl: float, max_turns: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl, self._max_turns, self._clock = ttl, max_turns, clock
        self._sessions: dict[str, Session] = {}

    def open(self, session_id: str | None) -> tuple[Session, SessionStatus]:
        """The live session for `session_id`, or a fresh one (under the same id if given)."""
        now = self._clock()
        self._sweep(now)
        if session_id and session_id in self._sessions:
            session = self._sessions[session_id]
            session.last_active = now
            return session, "continued"
        session = Session(
            id=session_id or str(uuid.uuid4()),
            turns=deque(maxlen=self._max_turns),
            last_active=now,
        )
        self._sessions[session.id] = session
        return session, "restarted" if session_id else "new"

    def record(self, session: Session, question: str, answer: str) -> None:
        session.turns.append((question, answer))
        session.last_active = self._clock()

    def __len__(self) -> int:
        return len(self._sessions)

    def _sweep(self, now: float) -> None:
        expired = [
            sid
            for sid, s in self._sessions.items()
            if now - s.last_active > self._ttl and not s.lock.locked()
        ]
        for sid in expired:
            del self._sessions[sid]


@asynccontextmanager
async def exclusive(session: Session) -> AsyncIterator[Session]:
    """Hold the session for a whole run so concurrent requests never interleave turns."""
    async with session.lock:
        yield session
