"""CONTRACT.md §5, connections: `docent serve` drops clients that send their request too
slowly, and trusts X-Forwarded-For only from configured proxies.

Driven against a real uvicorn on 127.0.0.1 configured as `docent serve` configures it.
No timing is asserted: with 1-second deadlines, each test only checks that the server
closed the connection, waiting generously (20 s) for it to do so.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest
from langchain_core.messages import AIMessage

from docent.agent.graph import build_graph
from docent.api.app import create_app
from docent.runtime import Runtime
from tests.fakes import GUIDE, FakeRetriever, PacedChatModel, ScriptedChatModel, call
from tests.live import LiveServer

pytestmark = pytest.mark.slow

GENEROUS = 20.0  # seconds a test waits for the server to act on a 1-second deadline


def _app(settings):
    graph = build_graph(ScriptedChatModel(steps=[]), FakeRetriever(chunks=list(GUIDE)), settings)
    runtime = Runtime(settings=settings, graph=graph, retriever=FakeRetriever(chunks=list(GUIDE)),
                      model_id="scripted")
    return create_app(settings, lambda _s: runtime)


@pytest.fixture
def server(settings):
    s = settings.model_copy(update={"header_timeout_seconds": 1.0, "body_timeout_seconds": 1.0})
    with LiveServer(_app(s), s) as live:
        yield live


def _closed_by_server(sock: socket.socket, trickle: bytes = b"") -> bytes:
    """Keep sending `trickle` a byte at a time (a slowloris) until the server closes the
    connection; returns what the server sent. Fails if it is still open after GENEROUS s."""
    sock.settimeout(0.2)
    received = b""
    deadline = time.monotonic() + GENEROUS
    i = 0
    while time.monotonic() < deadline:
        if trickle:
            try:
                sock.sendall(trickle[i % len(trickle):][:1])
            except OSError:  # reset by the server: closed
                return received
            i += 1
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return received
        if not data:
            return received
        received += data
    raise AssertionError(f"the server kept the connection open for {GENEROUS} s")


def _connect(server) -> socket.socket:
    return socket.create_connection((server.host, server.port), timeout=5)


def test_a_connection_that_never_sends_a_request_is_closed(server):
    with _connect(server) as sock:
        assert _closed_by_server(sock) == b""


def test_a_request_head_sent_a_byte_at_a_time_is_cut_off(server):
    with _connect(server) as sock:
        sock.sendall(b"POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert _closed_by_server(sock, trickle=b"X-Slow: aaaaaaaaaaaaaaaaaaaaaaaa\r\n") == b""


def test_a_body_sent_a_byte_at_a_time_is_cut_off(server):
    with _connect(server) as sock:
        sock.sendall(b"POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000\r\n\r\n{\"message\": \"")
        assert _closed_by_server(sock, trickle=b"x") == b""


def test_a_second_request_on_a_kept_alive_connection_has_its_own_deadline(server):
    with _connect(server) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        time.sleep(0.5)
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /health HTTP/1.1\r\n")  # the next request starts, then stalls
        assert _closed_by_server(sock, trickle=b"X-Slow: aaaaaaaa\r\n") == b""


def test_many_slow_clients_are_all_dropped_and_the_server_still_answers(server):
    """A small slowloris: 20 slow heads and 20 slow bodies at once."""
    heads = [_connect(server) for _ in range(20)]
    bodies = [_connect(server) for _ in range(20)]
    for sock in heads:
        sock.sendall(b"POST /chat HTTP/1.1\r\nHost: x\r\n")
    for sock in bodies:
        sock.sendall(b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Length: 50000\r\n\r\n{")
    results: list[bytes | BaseException] = []

    def watch(sock, trickle):
        try:
            results.append(_closed_by_server(sock, trickle))
        except BaseException as exc:  # noqa: BLE001 - reported below
            results.append(exc)
        finally:
            sock.close()

    threads = [threading.Thread(target=watch, args=(s, b"X-A: b\r\n")) for s in heads]
    threads += [threading.Thread(target=watch, args=(s, b"x")) for s in bodies]
    for t in threads:
        t.start()
    assert httpx.get(server.url + "/health", timeout=10).status_code == 200  # meanwhile
    for t in threads:
        t.join()
    assert results == [b""] * 40


def test_a_streamed_answer_is_never_cut_off_by_the_deadlines(settings):
    """The deadlines time the request only: a response may take longer than both."""
    s = settings.model_copy(update={"header_timeout_seconds": 1.0, "body_timeout_seconds": 1.0,
                                    "llm_cache_size": 0})
    model = PacedChatModel(steps=[call("tool-call limit"), AIMessage("Set it to three [1] now.")],
                           delay=0.6)
    retriever = FakeRetriever(chunks=list(GUIDE))
    runtime = Runtime(settings=s, graph=build_graph(model, retriever, s), retriever=retriever,
                      model_id="scripted")
    with LiveServer(create_app(s, lambda _s: runtime), s) as live:
        r = httpx.post(live.url + "/chat/stream", json={"message": "tool-call limit?"},
                       timeout=GENEROUS)
    frames = [line for line in r.text.splitlines() if line.startswith("event: ")]
    assert frames[-1] == "event: on_chain_end"
    assert json.loads(r.text.strip().splitlines()[-1][6:])["exit_reason"] == "COMPLETED"


def _spoofed(url: str, n: int) -> list[int]:
    return [httpx.post(url + "/chat", json={"message": "hi"},
                       headers={"X-Forwarded-For": f"203.0.113.{i}"}, timeout=10).status_code
            for i in range(n)]


def test_x_forwarded_for_is_ignored_by_default(settings):
    s = settings.model_copy(update={"rate_limit_client_per_hour": 3})
    with LiveServer(_app(s), s) as live:
        assert _spoofed(live.url, 5) == [200, 200, 200, 429, 429]


def test_x_forwarded_for_names_the_client_behind_a_trusted_proxy(settings):
    s = settings.model_copy(update={"rate_limit_client_per_hour": 3,
                                    "trusted_proxies": ["127.0.0.1"]})
    with LiveServer(_app(s), s) as live:
        assert _spoofed(live.url, 5) == [200] * 5  # five different clients, one request each
        same = [httpx.post(live.url + "/chat", json={"message": "hi"},
                           headers={"X-Forwarded-For": "198.51.100.7"}, timeout=10).status_code
                for _ in range(4)]
    assert same == [200, 200, 200, 429]


def _ask_on(sock: socket.socket) -> bytes:
    """One GET /health on a kept-alive connection; the response's status line."""
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: docent\r\n\r\n")
    reply = sock.makefile("rb")
    status = reply.readline()
    while reply.readline() not in (b"\r\n", b""):
        pass
    return status


def test_an_idle_kept_alive_connection_lasts_the_keep_alive_setting(settings):
    """A request on a connection idle for less than DOCENT_KEEP_ALIVE_SECONDS is answered; one
    idle for longer is closed by the server (a client racing that close loses its request,
    so the default outlasts clients' and proxies' own idle timeouts). The setting, not
    uvicorn's own 5 s, decides: with 2 s the server closes well before 5."""
    s = settings.model_copy(update={"keep_alive_seconds": 2})
    with LiveServer(_app(s), s) as live, socket.create_connection(
            (live.host, live.port), timeout=5) as sock:
        assert b" 200 " in _ask_on(sock)
        time.sleep(1)  # idle under the setting: still open
        assert b" 200 " in _ask_on(sock)
        idle = time.monotonic()
        assert _closed_by_server(sock) == b""  # idle past 2 s: closed
        assert time.monotonic() - idle < 4.5


def test_kept_alive_connections_outlast_clients_and_proxies_by_default():
    from docent.api.server import server_config
    from docent.config import load_settings

    # httpx expires idle connections after 5 s, nginx's keepalive_timeout is 75 s.
    assert server_config(object(), load_settings()).timeout_keep_alive >= 75
