"""Serving the app with uvicorn, plus the connection deadlines uvicorn does not have.

uvicorn closes a keep-alive connection that stays idle, but never one that is still sending
its request: every byte received cancels its only timer, so a client trickling a header or
a body one byte at a time holds a connection (and a slot) open forever, and a connection
that never sends anything is never closed either. Its request-start and request-complete
timeouts are an open uvicorn issue (#157), so docent adds them to uvicorn's h11 protocol:

- head: from the connection opening, or from the first byte of a later request on it, the
  request line and headers must arrive within `DOCENT_HEADER_TIMEOUT_SECONDS`;
- body: from the end of the head, the body must arrive within `DOCENT_BODY_TIMEOUT_SECONDS`.

A connection past its deadline is closed. Nothing is timed while a response is being sent
(a stream may last minutes) or while a kept-alive connection waits for its next request
(uvicorn's own keep-alive timeout does that, `DOCENT_KEEP_ALIVE_SECONDS`).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any, Literal

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from docent.api.balance import Balance, Balanced
from docent.config import Settings

log = logging.getLogger(__name__)

Phase = Literal["head", "body"]


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing connections that send their request too slowly."""

    header_timeout = 10.0
    body_timeout = 30.0
    balance: Balance | None = None  # `--workers N`: this worker's connection count

    _deadline: asyncio.TimerHandle | None = None
    _phase: Phase | None = None
    _fresh = True  # no request head has arrived on this connection yet

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.balance is not None:
            self.balance.opened()
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may start the next pipelined request
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._arm(None)
        if self.balance is not None:
            self.balance.closed()
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Time whatever the connection is waiting to receive, if anything."""
        state = self.conn.their_state
        if state is not h11.IDLE:
            self._fresh = False
        waiting_for_head = state is h11.IDLE and (self._fresh or self.conn.trailing_data[0])
        self._arm("body" if state is h11.SEND_BODY else "head" if waiting_for_head else None)

    def _arm(self, phase: Phase | None) -> None:
        if phase == self._phase:
            return  # a deadline runs from its start, not from the latest byte
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._phase = phase
        if phase is not None and not self.transport.is_closing():
            seconds = self.header_timeout if phase == "head" else self.body_timeout
            self._deadline = self.loop.call_later(seconds, self._expire, phase, seconds)

    def _expire(self, phase: Phase, seconds: float) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        log.info(
            "closing a connection whose request %s did not arrive within %.0f s",
            "head" if phase == "head" else "body", seconds,
            extra={"client": self.client[0] if self.client else "unknown"},
        )
        self.transport.close()


def protocol_for(settings: Settings, balance: Balance | None = None) -> type[DeadlineH11Protocol]:
    """The protocol class with this process's deadlines (uvicorn instantiates it)."""
    return type(
        "DocentH11Protocol",
        (DeadlineH11Protocol,),
        {"header_timeout": settings.header_timeout_seconds,
         "body_timeout": settings.body_timeout_seconds, "balance": balance},
    )


def server_config(
    app: Any, settings: Settings, host: str | None = None, port: int | None = None,
    balance: Balance | None = None,
) -> uvicorn.Config:
    """How `docent serve` runs uvicorn (tests run the same config on 127.0.0.1); with
    `balance`, a worker of `--workers N` (see docent.api.balance)."""
    return uvicorn.Config(
        Balanced(app, balance) if balance is not None else app,
        host=host or settings.host,
        port=settings.port if port is None else port,
        log_level=settings.log_level.lower(),
        http=protocol_for(settings, balance),
        # X-Forwarded-For is trusted by the app, from DOCENT_TRUSTED_PROXIES only; uvicorn's
        # own default would trust any client on 127.0.0.1 (CONTRACT.md §5, rate limits).
        proxy_headers=False,
        # uvicorn's 5 s is httpx's own idle expiry: a client reusing a connection as the
        # server closes it lost its request (2-3 a minute under 50 clients, bench/README.md).
        timeout_keep_alive=settings.keep_alive_seconds,
    )


class AnnouncingServer(uvicorn.Server):
    """uvicorn's server that says where it listens when handed its socket: uvicorn says so
    only for a socket it binds itself, and `docent serve` binds its own first (a busy port
    fails before anything loads), which left `make run` without its "running on" line."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and sockets:
            host, port = sockets[0].getsockname()[:2]
            where = f"[{host}]" if ":" in host else host
            logging.getLogger("uvicorn.error").info(
                "Uvicorn running on http://%s:%d (Press CTRL+C to quit)", where, port)

