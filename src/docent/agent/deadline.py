"""One overall deadline per model call, streaming included.

A provider's own client timeout only bounds the wait between two bytes: a model that
streams forever, or a server that trickles a body, never trips it. The deadline bounds the
whole call; when it passes, the call is cancelled (which closes its connection, freeing a
single-slot server) and the chain moves on to the next provider.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from langchain_core.exceptions import ModelTimeoutError

T = TypeVar("T")


class ModelDeadlineExceeded(ModelTimeoutError):
    """A model call did not finish within its deadline; never retried on the same provider."""

    is_retryable = False


async def within_deadline(call: Awaitable[T], seconds: float, what: str) -> T:
    """`await call`, cancelled after `seconds`; ModelDeadlineExceeded names `what`."""
    try:
        async with asyncio.timeout(seconds):
            return await call
    except TimeoutError as exc:
        raise ModelDeadlineExceeded(
            f"{what} gave no complete reply within {seconds:g} s"
        ) from exc
