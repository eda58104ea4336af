"""`docent serve --workers N` (docs/deployment.md, docent/api/workers.py): connections opened
at once are spread over the workers, a worker that dies is replaced while the others answer,
the port cannot be taken twice, and no worker outlives the parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.test_metrics_workers import multiprocess_dir, runs_in
from tests.processes import free_port, terminate
from tests.serve_process import ingested_env

pytestmark = pytest.mark.slow

QUESTION = {"message": "What is the tool-call limit?", "messages": []}


def sockets_on(port: int, state: str) -> list[list[str]]:
    """/proc/net/tcp's rows of sockets on 127.0.0.1:`port` in `state` (0A listening,
    01 established)."""
    local = f"0100007F:{port:04X}"
    rows = [row.split() for row in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    return [row for row in rows if row[1] == local and row[3] == state]


def listeners(port: int) -> int:
    """Sockets listening on 127.0.0.1:`port` (the parent's reserving socket never listens)."""
    return len(sockets_on(port, "0A"))


def workers_of(parent: int) -> set[int]:
    """The parent's worker processes (multiprocessing's resource tracker is not one)."""
    kids = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    return {int(k) for k in kids
            if b"resource_tracker" not in Path(f"/proc/{k}/cmdline").read_bytes()}


def wait_until(check, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.2)


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def together(url: str, clients: int) -> list[dict]:
    """`clients` questions sent at once, each on a connection of its own (as the load of
    bench/serve_bench.py does)."""
    import asyncio

    async def ask_all() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as c:
            return await asyncio.gather(*(c.post("/chat", json=QUESTION)
                                          for _ in range(clients)))

    return [r.json() for r in asyncio.run(ask_all())]


def two_workers(env: dict[str, str], port: int, log: Any) -> subprocess.Popen[bytes]:
    """`docent serve --workers 2` on `port`, once both workers listen."""
    server = subprocess.Popen(
        [sys.executable, "-m", "docent.cli", "serve", "--port", str(port), "--workers", "2"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: listeners(port) == 2, 180, "both workers to listen")
    except BaseException:
        terminate(server)
        raise
    return server


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return ingested_env(tmp_path)


def test_workers_share_the_port_and_replace_one_that_dies(env, tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (tmp_path / "serve.log").open("wb")
    server = two_workers(env, port, log)
    try:
        metrics = multiprocess_dir(server.pid)

        # Sixteen connections opened at once: the kernel spreads them over both sockets (all
        # sixteen on one of two is a 1 in 32,768 draw). One shared socket gave them all to
        # the worker that woke first.
        answers = together(url, clients=16)
        assert [a["exit_reason"] for a in answers] == ["COMPLETED"] * 16
        per_worker = [runs_in(db, tmp_path / db.stem) for db in metrics.glob("counter_*.db")]
        assert sorted(n > 0 for n in per_worker) == [True, True], per_worker
        assert sum(per_worker) == 16

        # A second server on the port is refused before it loads anything.
        second = subprocess.run(
            [sys.executable, "-m", "docent.cli", "serve", "--port", str(port), "--workers", "2"],
            env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert f"cannot listen on 127.0.0.1:{port}" in second.stderr

        # A worker killed outright: its socket goes with it, the other answers every new
        # connection at once, and a replacement joins once it has started.
        first = workers_of(server.pid)
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: listeners(port) == 1, 10, "the killed worker's socket to close")
        for _ in range(6):
            assert httpx.post(url + "/chat", json=QUESTION, timeout=60).json()[
                "exit_reason"] == "COMPLETED"
        wait_until(lambda: listeners(port) == 2, 180, "a replacement worker to listen")
        replaced = workers_of(server.pid)
        assert victim not in replaced and len(replaced) == 2 and replaced & first

        # The parent killed outright: its workers stop themselves.
        server.kill()
        server.wait()
        wait_until(lambda: not any(alive(p) for p in replaced), 30, "the workers to stop")
        assert listeners(port) == 0
    finally:
        if server.poll() is None:
            terminate(server)
        log.close()


def connections_per_worker(parent: int, port: int) -> dict[int, int]:
    """Established connections to 127.0.0.1:`port` held by each worker (from /proc)."""
    inodes = {row[9] for row in sockets_on(port, "01")}
    held = {}
    for pid in workers_of(parent):
        fds = Path(f"/proc/{pid}/fd")
        sockets = set()
        for fd in fds.iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                sockets.add(target[8:-1])
        held[pid] = len(sockets & inodes)
    return held


def test_kept_alive_connections_even_out_over_the_workers(env, tmp_path):
    """Connections that all fell on one worker are asked to reconnect (`Connection: close`)
    until each worker holds its share: the kernel's hash alone leaves them where they fell."""
    import http.client

    port = free_port()
    log = (tmp_path / "serve.log").open("wb")
    server = two_workers(env, port, log)
    try:
        # Eight connections on one worker: open connections (sending nothing yet, so nothing
        # is answered and none is asked to reconnect), keep those it accepted.
        def held() -> dict[int, int]:
            return connections_per_worker(server.pid, port)

        def settle(total: int, what: str) -> None:
            wait_until(lambda: sum(held().values()) == total, 10, what)

        first = None
        kept: list[http.client.HTTPConnection] = []
        for _ in range(200):
            before = held()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.connect()
            opened = sum(before.values()) + 1
            settle(opened, "the connection's accept")
            after = held()
            got = next(pid for pid in after if after[pid] > before.get(pid, 0))
            first = first or got
            if got == first:
                kept.append(conn)
            else:
                conn.close()
                settle(opened - 1, "the close")
            if len(kept) == 8:
                break
        assert held()[first] == 8

        closes = 0
        for _ in range(30):  # rounds of one request per client, each reconnecting if asked
            for conn in kept:
                conn.request("GET", "/health")
                response = conn.getresponse()
                response.read()
                closes += response.getheader("connection") == "close"
            counts = held()
            if sorted(counts.values()) == [4, 4]:
                break
        assert sorted(counts.values()) == [4, 4], counts
        assert closes >= 4  # at least the four the first worker had over its share
        for conn in kept:
            conn.close()
    finally:
        terminate(server)
        log.close()
