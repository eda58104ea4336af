"""`docent serve --workers N`: a worker that exits is replaced, and its connection count in
the workers' shared table is reset (docent.api.workers.replace_dead).

The real processes are driven in tests/api/test_workers.py; here fake ones show what the
parent does with the table, which only the parent process can see.
"""

from __future__ import annotations

from dataclasses import dataclass

from docent.api.balance import NOT_LISTENING
from docent.api.workers import STARTUP_FAILURE, replace_dead


@dataclass
class FakeWorker:
    alive: bool = True
    exitcode: int | None = None
    pid: int = 1

    def is_alive(self) -> bool:
        return self.alive


def test_a_dead_workers_connections_are_forgotten_and_it_is_replaced():
    workers = [FakeWorker(), FakeWorker(alive=False, exitcode=-9, pid=2)]
    table = [3, 7]  # the second held 7 connections when it was killed
    started: list[int] = []

    def start(i: int) -> FakeWorker:
        started.append(i)
        return FakeWorker(pid=10 + i)

    assert replace_dead(workers, table, start)
    assert table == [3, NOT_LISTENING]  # listening again only once its app has started
    assert started == [1] and workers[1].pid == 11 and workers[0].pid == 1


def test_a_worker_that_failed_to_start_stops_the_replacing():
    workers = [FakeWorker(alive=False, exitcode=STARTUP_FAILURE), FakeWorker(alive=False)]
    table = [NOT_LISTENING, 2]
    assert not replace_dead(workers, table, lambda i: FakeWorker())
    assert table == [NOT_LISTENING, 2]
