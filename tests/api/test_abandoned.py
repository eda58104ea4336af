"""CONTRACT.md §5, `/chat`: a question whose client closes the connection is dropped where
it is, waiting for a turn or waiting on the model, and counted in
`docent_chat_abandoned_total`, not in `docent_runs_total`.

Driven against a real uvicorn on 127.0.0.1, the client a raw socket that sends its
question and closes.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx
import pytest
from langchain_core.messages import AIMessage
from pydantic import PrivateAttr

from docent.agent.graph import build_graph
from docent.api.app import create_app
from docent.run_queue import RunQueue
from docent.runtime import Runtime
from tests.api.test_metrics import scrape
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel
from tests.live import LiveServer

pytestmark = pytest.mark.slow

GENEROUS = 20.0  # seconds to wait for something that takes milliseconds


@dataclass
class HeldRetriever(FakeRetriever):
    """The first search waits until `release` is set."""

    searching: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def search(self, query, k):
        if not self.searching.is_set():
            self.searching.set()
            assert self.release.wait(GENEROUS)
        return super().search(query, k)


class WatchedQueue(RunQueue):
    """A run queue that counts the questions that came to it."""

    arrived = 0

    def turn(self):
        self.arrived += 1
        return super().turn()


class StalledModel(ScriptedChatModel):
    """A model that never answers, noting when it is asked and when it is cancelled."""

    _asked: threading.Event = PrivateAttr(default_factory=threading.Event)
    _cancelled: threading.Event = PrivateAttr(default_factory=threading.Event)

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        self._asked.set()
        try:
            await asyncio.sleep(GENEROUS)
        except asyncio.CancelledError:
            self._cancelled.set()
            raise
        raise AssertionError("the run was not cancelled")


def _counted(url: str, name: str) -> float:
    """`name`'s samples summed over their labels, as the server's /metrics gives them."""
    with httpx.Client(base_url=url) as client:
        return sum(v for (sample, _), v in scrape(client).items() if sample == name)


def _abandoned(url: str) -> float:
    return _counted(url, "docent_chat_abandoned_total")


@contextmanager
def _posted(port: int, question: str) -> Iterator[None]:
    """POST /chat on a raw socket; the connection closes, unread, when the block ends."""
    body = json.dumps({"message": question, "messages": []}).encode()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                     b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        yield


def test_a_question_whose_client_left_while_it_waited_is_dropped(settings):
    s = settings.model_copy(update={"rate_limit_enabled": False,
                                    "retrieval_timeout_seconds": GENEROUS})
    queue = WatchedQueue(1)
    retriever = HeldRetriever(chunks=list(GUIDE))
    model = ScriptedChatModel(steps=[AIMessage("The default is 3 [1].") for _ in range(3)])
    runtime = Runtime(settings=s, graph=build_graph(model, retriever, s), retriever=retriever,
                      model_id="scripted", runs=queue)
    with LiveServer(create_app(s, lambda _s: runtime), s) as live:
        before = _abandoned(live.url)
        first: dict[str, httpx.Response] = {}
        holder = threading.Thread(target=lambda: first.update(r=httpx.post(
            live.url + "/chat", json={"message": "tool-call limit first?", "messages": []},
            timeout=GENEROUS)))
        holder.start()
        assert retriever.searching.wait(GENEROUS)  # the first holds the only turn

        with _posted(live.port, "tool-call limit second?"):
            deadline = time.monotonic() + GENEROUS
            while queue.arrived < 2:
                assert time.monotonic() < deadline, "the second question never arrived"
                time.sleep(0.02)
        deadline = time.monotonic() + GENEROUS
        while _abandoned(live.url) < before + 1:  # dropped while it waits
            assert time.monotonic() < deadline, "the abandoned question was not counted"
            time.sleep(0.05)
        retriever.release.set()
        holder.join(GENEROUS)
        assert first["r"].status_code == 200
        assert retriever.queries == ["tool-call limit first?"]  # the second never searched
        assert len(model.calls) == 1


def test_a_run_whose_client_left_is_cancelled(settings):
    s = settings.model_copy(update={"rate_limit_enabled": False, "llm_timeout_seconds": 60})
    model = StalledModel()
    retriever = FakeRetriever(chunks=list(GUIDE))
    runtime = Runtime(settings=s, graph=build_graph(model, retriever, s), retriever=retriever,
                      model_id="stalled")  # no run queue: a hosted model's runs
    with LiveServer(create_app(s, lambda _s: runtime), s) as live:
        before = _abandoned(live.url), _counted(live.url, "docent_runs_total")
        with _posted(live.port, "tool-call limit?"):
            assert model._asked.wait(GENEROUS)
        assert model._cancelled.wait(GENEROUS), "the model was still asked after the client left"
        deadline = time.monotonic() + GENEROUS
        while _abandoned(live.url) < before[0] + 1:
            assert time.monotonic() < deadline, "the abandoned question was not counted"
            time.sleep(0.05)
        assert _counted(live.url, "docent_runs_total") == before[1]  # no run's exit reason
