"""What stands between a valid body and the agent: limits, sessions, the turn itself."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

from fastapi import Request

from docent.api.errors import ApiError
from docent.api.ratelimit import MemoryRateLimits, RateLimits
from docent.api.schemas import ChatRequest
from docent.blank import is_blank
from docent.chat import ChatTurn
from docent.config import Settings
from docent.exit_reasons import ExitReason
from docent.sessions import (
    InMemorySessions,
    SessionRef,
    SessionsFull,
    SessionStatus,
    SessionStore,
)
from docent.state.client import SharedState
from docent.state.health import StateUnavailable

SESSIONS_RETRY_AFTER = 5  # seconds; a Redis outage is rarely shorter


def sessions_unavailable() -> ApiError:
    """The 503 for a request that needs a server-side session while Redis is down."""
    return ApiError(
        503, "SESSIONS_UNAVAILABLE",
        # Shown to people by the web chat: the `messages` alternative is in the docs.
        "Conversations are unavailable for a moment. Please try again shortly.",
        headers={"Retry-After": str(SESSIONS_RETRY_AFTER)}, quiet=True,  # logged by health
    )


@dataclass
class Prepared:
    """An admitted request: its turn (without history yet) and its session, if any."""

    turn: ChatTurn
    sessions: SessionStore
    session: SessionRef | None
    status: SessionStatus | None

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[ChatTurn]:
        """The turn with its history, holding the session so turns never interleave;
        `SESSIONS_UNAVAILABLE` when the shared store does not answer."""
        if self.session is None:
            yield self.turn
            return
        async with AsyncExitStack() as stack:
            try:
                history = await stack.enter_async_context(self.sessions.hold(self.session))
            except StateUnavailable:
                raise sessions_unavailable() from None
            yield replace(self.turn, history=history)

    async def finish(self, result: dict[str, Any]) -> None:
        """Record the turn in the session and say which session answered."""
        if self.session is None:
            return
        result["session_id"] = self.session.id
        result["metadata"]["session_status"] = self.status
        if not result["retryable"]:  # a retry should not repeat the question in the history
            try:
                await self.sessions.record(self.session, self.turn.message, result["response"])
            except StateUnavailable:
                pass  # answered, not recorded: Redis went away mid-turn (logged once by health)


class ChatGate:
    """Validates what the schema cannot, applies rate limits, opens sessions."""

    def __init__(self, settings: Settings, sessions: SessionStore | None = None,
                 limits: RateLimits | None = None) -> None:
        self.settings = settings
        self.sessions: SessionStore = sessions or InMemorySessions(
            settings.session_ttl_seconds, settings.session_max_turns,
            max_sessions=settings.session_max_count,
        )
        self.limits: RateLimits = limits or MemoryRateLimits(
            settings.rate_limit_session_per_minute, settings.rate_limit_client_per_hour
        )

    async def admit(self, body: ChatRequest, request: Request) -> Prepared:
        if is_blank(body.message):
            raise ApiError(400, "EMPTY_QUERY", "Please type a question.",
                           exit_reason=ExitReason.EMPTY_INPUT.value)
        limit = self.settings.max_message_chars
        if len(body.message) > limit:
            raise ApiError(400, "QUERY_TOO_LONG",
                           f"The question is longer than {limit} characters.")
        if body.session_id is not None and body.messages is not None:
            raise ApiError(400, "INVALID_SESSION",
                           "Send either session_id (server keeps the history) or messages "
                           "(you keep it), not both.")
        session_key = str(body.session_id) if body.session_id else None
        await self._check_limits(request, session_key)

        session, status = None, None
        if body.messages is None:
            try:
                session, status = await self.sessions.open(session_key)
            except SessionsFull:
                raise ApiError(503, "SERVER_BUSY",
                               "Too many conversations are being answered right now. "
                               "Please retry in a moment.", headers={"Retry-After": "1"},
                               ) from None
            except StateUnavailable:
                raise sessions_unavailable() from None
        if self.settings.rate_limit_enabled:  # only requests let through count
            wait = await self.limits.record(_client(request), session.id if session else None)
            if wait:  # another request took the last slot meanwhile (on another replica)
                raise rate_limited(wait)
        turn = ChatTurn(
            message=body.message,
            history=[(m.role, m.content) for m in body.messages or []],
            top_k=body.top_k,
            selected_text=body.selected_text,
            user_context=body.user_context,
            session_id=session.id if session else None,
            query_id=request.state.query_id,
        )
        return Prepared(turn, self.sessions, session, status)

    async def client_wait(self, request: Request) -> float:
        """Seconds before this client may send again (0: now); counts nothing. Checked
        before the body is read (`api/limits.py`) and again on admission."""
        if not self.settings.rate_limit_enabled:
            return 0.0
        return await self.limits.client_wait(_client(request))

    async def _check_limits(self, request: Request, session_key: str | None) -> None:
        if not self.settings.rate_limit_enabled:
            return
        wait = await self.client_wait(request)
        if session_key:
            wait = max(wait, await self.limits.session_wait(session_key))
        if wait:
            raise rate_limited(wait)


def rate_limited(wait: float) -> ApiError:
    """The 429 for a client or session that must wait `wait` seconds."""
    return ApiError(429, "RATE_LIMITED", f"Too many requests. Please retry in {int(wait)} seconds.",
                    headers={"Retry-After": str(int(wait))})


def _client(request: Request) -> str:
    """The client's address: the peer's, or a trusted proxy's X-Forwarded-For
    (`DOCENT_TRUSTED_PROXIES`, applied by the app's proxy-headers middleware)."""
    return request.client.host if request.client else "unknown"


def build_gate(settings: Settings, shared: SharedState | None) -> ChatGate:
    """The gate of one process: sessions and limits in memory, or in the shared Redis."""
    if shared is None:
        return ChatGate(settings)
    from docent.state.ratelimits import RedisRateLimits
    from docent.state.sessions import RedisSessions

    sessions = RedisSessions(shared, settings.session_ttl_seconds, settings.session_max_turns,
                             settings.session_max_count, settings.session_lock_seconds)
    limits = RedisRateLimits(shared, settings.rate_limit_session_per_minute,
                             settings.rate_limit_client_per_hour)
    return ChatGate(settings, sessions, limits)
