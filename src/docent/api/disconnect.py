"""`/chat` work that stops when its client leaves.

A `/chat` client that closes its connection (a tab closed, a client that timed out) will
read no answer. Its run is cancelled wherever it is: waiting for a turn in the run queue
(`docent.run_queue`), searching, or waiting on a hosted model, which then spends no more
tokens on it. Under overload with client timeouts, runs of clients that had given up took
the turns of those still waiting, and nearly every answer came too late (bench/README.md).

The listener reads the request's `receive` once the body is read: the only message left
to come is `http.disconnect` (uvicorn also sends it once the response is complete).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from starlette.requests import Request

T = TypeVar("T")


async def unless_client_leaves(request: Request, work: Coroutine[Any, Any, T]) -> T | None:
    """`work`'s result; None, with `work` cancelled, when the client disconnects first."""
    task = asyncio.ensure_future(work)
    left = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, left}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, left):
            if not pending.done():
                pending.cancel()
    if task.done() and not task.cancelled():
        return task.result()  # finished first (or together with the disconnect)
    with contextlib.suppress(asyncio.CancelledError):
        await task  # let the run unwind before the caller releases the session
    return None


async def _disconnected(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass
