"""CONTRACT.md §5, `/chat` under load: a question whose client closed the connection while
it waited for a turn is not run, and is counted in `docent_chat_abandoned_total`.

Driven against a real uvicorn on 127.0.0.1: one question holds the only turn (its search
waits on an event), a second arrives on a raw socket that then closes, and the first is
let go only once the second waits in the queue.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field

import httpx
import pytest
from langchain_core.messages import AIMessage
from prometheus_client.parser import text_string_to_metric_families

from docent.agent.graph import build_graph
from docent.api.app import create_app
from docent.run_queue import RunQueue
from docent.runtime import Runtime
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

    def turn(self, gone=None):
        self.arrived += 1
        return super().turn(gone)


def _abandoned(url: str) -> float:
    text = httpx.get(url + "/metrics").text
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
               if s.name == "docent_chat_abandoned_total")


def _post_and_close(port: int, question: str) -> None:
    """POST /chat on a raw socket, then close the connection without reading."""
    body = json.dumps({"message": question, "messages": []}).encode()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                     b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def test_a_question_whose_client_left_while_it_waited_is_not_run(settings):
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

        _post_and_close(live.port, "tool-call limit second?")
        deadline = time.monotonic() + GENEROUS
        while queue.arrived < 2:
            assert time.monotonic() < deadline, "the second question never arrived"
            time.sleep(0.02)
        time.sleep(0.2)  # and its connection's close with it
        retriever.release.set()
        holder.join(GENEROUS)

        assert first["r"].status_code == 200
        deadline = time.monotonic() + GENEROUS
        while _abandoned(live.url) < before + 1:
            assert time.monotonic() < deadline, "the abandoned question was not counted"
            time.sleep(0.05)
        assert retriever.queries == ["tool-call limit first?"]  # the second never searched
        assert len(model.calls) == 1
