"""What a request may cost before it is parsed: the body cap, and the client's rate limit.

A pure ASGI middleware, so it runs before FastAPI reads or parses anything:

1. a declared `Content-Length` over `DOCENT_MAX_BODY_BYTES` is refused at once (413);
2. a client over its hourly limit is refused before its body is read (429), so a client
   that is already limited cannot make the server read and parse large bodies again;
3. the body is read here, counted as it streams (a chunked body has no length to check),
   and refused the moment it passes the cap; the app then reads it from memory.

Refusals that leave a body unread carry `Connection: close`: the connection cannot be
reused while the rest of that body is still on its way.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docent.api.errors import error_response
from docent.api.guard import rate_limited

# The requests the per-client limit counts (POST to these; `ChatGate.admit` records them).
LIMITED_PATHS = frozenset({"/chat", "/chat/stream"})
_CLOSE = {"Connection": "close"}


class RequestLimits:
    """Refuse oversized bodies and rate-limited clients before the app reads a byte."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._too_large(request, scope, receive, send)
            return
        limited = scope["method"] == "POST" and scope["path"] in LIMITED_PATHS
        wait = await _client_wait(request) if limited else 0.0
        if wait:
            refused = rate_limited(wait)
            await error_response(
                request, refused.status, refused.code, refused.message,
                headers={**refused.headers, **_CLOSE},
            )(scope, receive, send)
            return

        body: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left: nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await self._too_large(request, scope, receive, send)
                return
            body.append(chunk)
            more = message.get("more_body", False)
        await self.app(scope, _replay(b"".join(body), receive), send)

    async def _too_large(self, request: Request, scope: Scope, receive: Receive,
                         send: Send) -> None:
        limit = self.max_body_bytes
        await error_response(
            request, 413, "BODY_TOO_LARGE",
            f"The request body is larger than {limit} bytes.", headers=dict(_CLOSE),
        )(scope, receive, send)


async def _client_wait(request: Request) -> float:
    """Seconds the client must wait under its hourly limit; 0 before start-up finished."""
    gate: Any = getattr(request.app.state, "gate", None)
    return await gate.client_wait(request) if gate is not None else 0.0


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands out the buffered body once, then the client's own events
    (a streaming response listens on it for the disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
