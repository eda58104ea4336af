"""What stands between a valid body and the agent: limits, sessions, the turn itself."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

from fastapi import Request

from docent.api.errors import ApiError
from docent.api.ratelimit import SlidingWindow
from docent.api.schemas import ChatRequest
from docent.blank import is_blank
from docent.chat import ChatTurn
from docent.config import Settings
from docent.exit_reasons import ExitReason
from docent.sessions import (
    InMemorySessions,
    Session,
    SessionsFull,
    SessionStatus,
    SessionStore,
)


@dataclass
class Prepared:
    """An admitted request: its turn (without history yet) and its session, if any."""

    turn: ChatTurn
    sessions: SessionStore
    session: Session | None
    status: SessionStatus | None

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[ChatTurn]:
        """The turn with its history, holding the session so turns never interleave."""
        if self.session is None:
            yield self.turn
            return
        async with self.session.lock:
            history = self.session.history()
            yield replace(self.turn, history=history)

    def finish(self, result: dict[str, Any]) -> None:
        """Record the turn in the session and say which session answered."""
        if self.session is None:
            return
        result["session_id"] = self.session.id
        result["metadata"]["session_status"] = self.status
        if not result["retryable"]:  # a retry should not repeat the question in the history
            self.sessions.record(self.session, self.turn.message, result["response"])


class ChatGate:
    """Validates what the schema cannot, applies rate limits, opens sessions."""

    def __init__(self, settings: Settings, sessions: SessionStore | None = None) -> None:
        self.settings = settings
        self.sessions = sessions or InMemorySessions(
            settings.session_ttl_seconds, settings.session_max_turns,
            max_sessions=settings.session_max_count,
        )
        self.per_session = SlidingWindow(settings.rate_limit_session_per_minute, 60.0)
        self.per_client = SlidingWindow(settings.rate_limit_client_per_hour, 3600.0)

    def admit(self, body: ChatRequest, request: Request) -> Prepared:
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
        self._check_limits(request, session_key)

        session, status = None, None
        if body.messages is None:
            try:
                session, status = self.sessions.open(session_key)
            except SessionsFull:
                raise ApiError(503, "SERVER_BUSY",
                               "Too many conversations are being answered right now. "
                               "Please retry in a moment.", headers={"Retry-After": "1"},
                               ) from None
        if self.settings.rate_limit_enabled:  # only requests let through count
            self.per_client.record(_client(request))
            if session is not None:
                self.per_session.record(session.id)
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

    def client_wait(self, request: Request) -> float:
        """Seconds before this client may send again (0: now); counts nothing. Checked
        before the body is read (`api/limits.py`) and again on admission."""
        if not self.settings.rate_limit_enabled:
            return 0.0
        return self.per_client.retry_after(_client(request))

    def _check_limits(self, request: Request, session_key: str | None) -> None:
        if not self.settings.rate_limit_enabled:
            return
        wait = self.client_wait(request)
        if session_key:
            wait = max(wait, self.per_session.retry_after(session_key))
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
