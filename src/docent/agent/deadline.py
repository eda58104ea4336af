"""One overall deadline per model call, streaming included.

A provider's own client timeout only bounds the wait between two bytes: a model that
streams forever, or a server that trickles a body, never trips it. The deadline bounds the
whole call; when it passes, the call is cancelled (which closes its connection, freeing a
single-slot server) and the chain moves on to the next provider.

The call runs as a task of its own so that the deadline holds even when the call swallows
its cancellation: on Python 3.11, `asyncio.wait_for` (which langchain-openai wraps around
every streamed chunk) loses a cancellation that arrives as a chunk does, and the stream
then runs on. Such a task is cancelled again until it ends, in the background; the run
does not wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from langchain_core.exceptions import ModelTimeoutError

T = TypeVar("T")

GRACE_SECONDS = 1.0  # how long a cancelled call may take to clean up before the run moves on
_RECANCEL_SECONDS = 0.5
_stubborn: set[asyncio.Task[Any]] = set()  # cancelled calls still running: kept referenced


class ModelDeadlineExceeded(ModelTimeoutError):
    """A model call did not finish within its deadline; never retried on the same provider."""

    is_retryable = False


async def within_deadline(call: Coroutine[Any, Any, T], seconds: float, what: str) -> T:
    """`await call`, abandoned after `seconds`; ModelDeadlineExceeded names `what`."""
    task = asyncio.ensure_future(call)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except asyncio.CancelledError:  # the run itself was cancelled (a client went away)
        task.cancel()
        raise
    if done:
        return task.result()
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=GRACE_SECONDS)
    if not done:  # it swallowed the cancellation: keep at it, without holding the run
        _stubborn.add(task)
        asyncio.get_running_loop().create_task(_cancel_until_done(task))
    else:
        with contextlib.suppress(BaseException):
            task.result()  # retrieved, so asyncio does not log it as never retrieved
    raise ModelDeadlineExceeded(f"{what} gave no complete reply within {seconds:g} s")


async def _cancel_until_done(task: asyncio.Task[Any]) -> None:
    try:
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=_RECANCEL_SECONDS)
    finally:
        _stubborn.discard(task)
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: an error after the deadline is nobody's concern
