"""`/chat` answers by an in-process model, admitted a few at a time in arrival order.

With the built-in `extractive` model an answer is CPU work from its first step to its last.
Unqueued, concurrent runs took turns in the worker pool step by step (search, compose), so
each answer waited for every other one in flight, and the slowest questions set the p95.
Admitting `DOCENT_WORKER_THREADS` runs at a time, the others waiting in arrival order, each
answer waits only for those that came before it. Ten clients on one worker: 60 against 55
answers a second, p95 0.19-0.21 s against 0.26-0.27 s; fifty clients on two workers: 99
against 85, p95 0.70 s against 1.2-1.7 s (bench/README.md).

A hosted model's run mostly waits on the network, so it is not queued, nor is a stream: a
stream runs as fast as its client reads, and a slow reader would hold its turn.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Protocol


class _Model(Protocol):
    @property
    def endpoint(self) -> str: ...


class RunQueue:
    """At most `size` runs at once; the others wait their turn in arrival order."""

    def __init__(self, size: int) -> None:
        self.size = size
        # One semaphore per event loop (tests run several loops in one process).
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        turns = self._turns.get(loop)
        if turns is None:
            turns = self._turns[loop] = asyncio.Semaphore(self.size)
        async with turns:
            yield


def run_queue_for(chain: Sequence[_Model], size: int) -> RunQueue | None:
    """A queue of `size` when the first model answers in this process (no endpoint)."""
    return RunQueue(size) if chain and not chain[0].endpoint else None
