"""CONTRACT.md §5, deadlines: a model call is abandoned at its deadline, whatever it does.

Behaviour only (tiny deadlines, no timing assertions): `bench/deadline.py` measures.
"""

from __future__ import annotations

import asyncio

import pytest

from docent.agent import deadline
from docent.agent.deadline import ModelDeadlineExceeded, within_deadline


async def test_a_call_within_its_deadline_returns_its_result():
    async def quick() -> str:
        return "answer"

    assert await within_deadline(quick(), 5, "model m") == "answer"


async def test_a_hung_call_is_cancelled_at_the_deadline():
    cancelled = asyncio.Event()

    async def hung() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(ModelDeadlineExceeded, match="model m gave no complete reply"):
        await within_deadline(hung(), 0.05, "model m")
    assert cancelled.is_set()


async def test_a_call_that_swallows_its_cancellation_does_not_hold_the_run(monkeypatch):
    # What asyncio.wait_for does on Python 3.11 when a cancellation meets a chunk: the
    # stream goes on. The run moves on after a grace period; the call is cancelled again.
    monkeypatch.setattr(deadline, "GRACE_SECONDS", 0.05)
    stopped = asyncio.Event()

    async def stubborn() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            pass  # swallowed: streams on
        try:
            await asyncio.sleep(3600)
        finally:
            stopped.set()

    with pytest.raises(ModelDeadlineExceeded):
        await within_deadline(stubborn(), 0.05, "model m")
    await asyncio.wait_for(stopped.wait(), 10)  # the background re-cancel ended it
