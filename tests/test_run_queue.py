"""docent.run_queue: /chat runs of an in-process model are admitted a few at a time, in
arrival order; a hosted model's runs and streams are not queued."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage

from docent.agent.graph import build_graph
from docent.chat import ChatTurn, run_chat
from docent.models.factory import NamedModel
from docent.run_queue import RunQueue, run_queue_for
from docent.runtime import Runtime
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel


@dataclass
class SlowRetriever(FakeRetriever):
    """Searches that take 0.1 s each, counting how many ran at once."""

    running: int = 0
    most: int = 0
    order: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def search(self, query, k):
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.order.append(query)
        time.sleep(0.1)
        with self.lock:
            self.running -= 1
        return super().search(query, k)


def _runtime(settings, runs: RunQueue | None) -> tuple[Runtime, SlowRetriever]:
    retriever = SlowRetriever(chunks=list(GUIDE))
    model = ScriptedChatModel(steps=[AIMessage("The default is 3 [1].") for _ in range(3)])
    graph = build_graph(model, retriever, settings)
    return Runtime(settings=settings, graph=graph, retriever=retriever, model_id="s",
                   runs=runs), retriever


async def _three_at_once(runtime: Runtime) -> list[str]:
    async def ask(i: int) -> str:
        await asyncio.sleep(0.01 * i)  # arrive in order: 0, 1, 2
        result = await run_chat(runtime, ChatTurn(message=f"tool-call limit {i}?"))
        return result["exit_reason"]

    return await asyncio.gather(*(ask(i) for i in range(3)))


async def test_queued_runs_take_turns_in_arrival_order(settings):
    runtime, retriever = _runtime(settings, RunQueue(1))
    assert await _three_at_once(runtime) == ["COMPLETED"] * 3
    assert retriever.most == 1
    assert retriever.order == [f"tool-call limit {i}?" for i in range(3)]


async def test_unqueued_runs_overlap(settings):
    runtime, retriever = _runtime(settings, None)
    assert await _three_at_once(runtime) == ["COMPLETED"] * 3
    assert retriever.most > 1


def test_a_queue_serves_each_event_loop_of_a_process():
    queue = RunQueue(1)

    async def two() -> None:
        async def one() -> None:
            async with queue.turn():
                await asyncio.sleep(0.01)

        await asyncio.gather(one(), one())  # the second waits: the semaphore binds the loop

    asyncio.run(two())
    asyncio.run(two())  # a new loop: a fresh semaphore, not one bound to the old loop


def test_only_an_in_process_first_model_is_queued():
    extractive = NamedModel("extractive", ScriptedChatModel())
    hosted = NamedModel("gemini:x", ScriptedChatModel(), "https://example.invalid")
    queue = run_queue_for([extractive, hosted], 2)
    assert queue is not None and queue.size == 2
    assert run_queue_for([hosted, extractive], 2) is None
