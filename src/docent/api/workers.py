"""`docent serve --workers N`: N server processes on one port, each accepting on its own socket.

uvicorn's workers share one listening socket, and the worker that wakes first accepts every
connection waiting: ten clients connecting at once all landed on one worker while the other
sat idle (bench/README.md), so a second worker added memory and no answers. Here each worker
has a socket of its own on the port (SO_REUSEPORT), and the kernel spreads new connections
over the sockets that listen. A worker listens only once its app has started (uvicorn opens
the socket after the lifespan), so no connection waits for a worker still loading, and a
worker's socket closes with it. The kernel's spread is by chance and a kept-alive connection
stays where it fell, so the workers share a table of their connection counts and one over
its share asks clients to reconnect (docent.api.balance).

    parent: hold port ──┬─ spawn worker 1 ── bind; app + runtime; listen; serve
                        ├─ spawn worker 2 ── ...
                        └─ every 0.5 s: a worker that died after starting is replaced;
                           one that failed to start stops them all;
                           SIGINT/SIGTERM: SIGTERM to each worker, then wait for them

Workers run in their own process group, so a terminal's Ctrl-C reaches only the parent,
which stops each worker once (a second signal would make uvicorn drop open connections);
a worker whose parent is gone stops itself. Linux only: elsewhere `SO_REUSEPORT` does not
spread connections, and `docent serve --workers` says so and exits.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import Any

from docent.api.balance import NOT_LISTENING, Balance

log = logging.getLogger(__name__)

STARTUP_FAILURE = 3  # a worker's exit code when its app did not start (uvicorn's own code)
POLL_SECONDS = 0.5


def spreads_connections() -> bool:
    """Whether sockets sharing a port with SO_REUSEPORT share its connections here."""
    return sys.platform.startswith("linux")


def reserve_port(host: str, port: int) -> socket.socket:
    """A socket holding host:port (port 0: a free port) while workers start and restart.

    Bound with SO_REUSEPORT, so workers can bind beside it, and never listening, so it takes
    no connection. OSError when anything else is bound to the port, another `docent serve
    --workers` included: a socket without SO_REUSEPORT is bound to it first, which only a
    port nobody holds allows.
    """
    with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT
        probe.bind((host, port))
        port = probe.getsockname()[1]
    # Not `bound_socket`: with SO_REUSEADDR too, another server's probe (which sets it)
    # could bind beside this guard while no worker listens yet.
    guard = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        guard.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        guard.bind((host, port))
    except OSError:
        guard.close()
        raise
    return guard


def serve_workers(count: int, host: str, port: int) -> int:
    """`count` workers on host:port until SIGINT or SIGTERM; 1 when a worker failed to
    start (its own log line says why)."""
    log.info("docent serving on http://%s:%d with %d workers", host, port, count)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    spawn = multiprocessing.get_context("spawn")
    # Each worker's connection count, -1 while it is not listening (docent.api.balance).
    table = spawn.RawArray("i", [NOT_LISTENING] * count)
    workers = [_start(spawn, host, port, table, i) for i in range(count)]
    failed = False
    try:
        while not stop.wait(POLL_SECONDS):
            if not replace_dead(workers, table, lambda i: _start(spawn, host, port, table, i)):
                log.error("a worker failed to start; stopping the others")
                failed = True
                stop.set()
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()  # SIGTERM: uvicorn finishes what it is answering
        for worker in workers:
            worker.join()
    return 1 if failed else 0


def replace_dead(workers: list[BaseProcess], table: Any,
                 start: Callable[[int], BaseProcess]) -> bool:
    """Start another worker in place of each that exited, its connection count reset (its
    connections went with it: left as it was, the survivors would think it still held
    them, and ask their own clients to reconnect); False, replacing none after it, at one
    that failed to start."""
    for i, worker in enumerate(workers):
        if worker.is_alive():
            continue
        if worker.exitcode == STARTUP_FAILURE:
            return False
        log.warning("worker %s exited with code %s; starting another", worker.pid,
                    worker.exitcode)
        table[i] = NOT_LISTENING
        workers[i] = start(i)
    return True


def _start(spawn: Any, host: str, port: int, table: Any, index: int) -> BaseProcess:
    worker: BaseProcess = spawn.Process(target=_worker, args=(host, port, table, index),
                                        name="docent-worker")
    worker.start()
    return worker


def _worker(host: str, port: int, table: Any, index: int) -> None:
    """One worker process: the app as `docent serve` builds it, on a socket of its own,
    keeping its share of the connections (see docent.api.balance)."""
    os.setpgrp()  # a terminal's Ctrl-C goes to the parent, which stops workers once
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_stop_when_gone, args=(parent.sentinel,), daemon=True).start()

    import uvicorn

    from docent.api.app import create_app
    from docent.api.server import server_config
    from docent.config import get_settings
    from docent.logs import configure_logging
    from docent.runtime import build_runtime

    settings = get_settings()
    configure_logging(settings.log_level)
    try:
        sock = bound_socket(host, port, beside_workers=True)
    except OSError as exc:
        log.error("a worker cannot bind %s:%d: %s", host, port, exc)
        sys.exit(STARTUP_FAILURE)
    app = create_app(settings, build_runtime)
    server = uvicorn.Server(server_config(app, settings, balance=Balance(table, index)))
    server.run(sockets=[sock])  # uvicorn listens once the app has started
    if not server.started:
        sys.exit(STARTUP_FAILURE)


def bound_socket(host: str, port: int, *, beside_workers: bool = False) -> socket.socket:
    """A socket bound to host:port, not listening yet (uvicorn listens once the app has
    started): one server process's, or with `beside_workers` a worker's, bound beside the
    other workers' (SO_REUSEPORT). OSError when anything else holds the port."""
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT
        if beside_workers:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _stop_when_gone(sentinel: int) -> None:
    """SIGTERM this worker once its parent has exited (killed, say), so none outlives it."""
    wait([sentinel])
    os.kill(os.getpid(), signal.SIGTERM)
