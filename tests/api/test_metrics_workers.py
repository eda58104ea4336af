"""CONTRACT.md §5, `GET /metrics` with `docent serve --workers 2`: whichever worker answers a
scrape, the counters are those of both workers (prometheus-client's multiprocess mode)."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.api.test_metrics import value
from tests.serve_process import ingested_env, serving

pytestmark = pytest.mark.slow


def scrape(url: str) -> dict:
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(url + "/metrics", timeout=30).text  # a new connection: any worker
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def multiprocess_dir(server: int) -> Path:
    """The PROMETHEUS_MULTIPROC_DIR `docent serve` gave its workers (none was set for it)."""
    for child in Path(f"/proc/{server}/task/{server}/children").read_text().split():
        for entry in Path(f"/proc/{child}/environ").read_bytes().split(b"\0"):
            if entry.startswith(b"PROMETHEUS_MULTIPROC_DIR="):
                path = Path(entry.split(b"=", 1)[1].decode())
                assert path.name.startswith("docent-metrics-")
                return path
    raise AssertionError("no worker has PROMETHEUS_MULTIPROC_DIR")


def ask(url: str, i: int) -> dict:
    r = httpx.post(url + "/chat", json={"message": f"What is the tool-call limit? {i}",
                                        "messages": []}, timeout=120)
    assert r.status_code == 200
    return r.json()


def runs_in(db: Path, alone: Path) -> float:
    """The runs one worker counted: its file read on its own."""
    from prometheus_client import CollectorRegistry, multiprocess

    alone.mkdir()
    shutil.copy(db, alone / db.name)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(alone))
    return sum(s.value for m in registry.collect() if m.name == "docent_runs"
               for s in m.samples if s.name == "docent_runs_total")


def test_counters_are_summed_across_workers(tmp_path):
    env = ingested_env(tmp_path)
    asked, pids = 0, []
    with serving(env, tmp_path / "serve.log", "--workers", "2", pids=pids) as url:
        metrics_dir = multiprocess_dir(pids[0])
        # Batches of questions at once, each on its own connection, until both workers
        # have answered some (the second may still be starting when the first answers).
        while asked < 48:
            with ThreadPoolExecutor(4) as pool:
                answers = list(pool.map(lambda i: ask(url, i), range(asked, asked + 4)))
            asked += len(answers)
            assert all(a["exit_reason"] == "COMPLETED" for a in answers)
            per_worker = [runs_in(db, tmp_path / f"{db.stem}-{asked}")
                          for db in metrics_dir.glob("counter_*.db")]
            if sum(n > 0 for n in per_worker) >= 2:
                break
        scrapes = [scrape(url) for _ in range(6)]
    assert not metrics_dir.exists()  # docent serve removed its directory when it stopped
    assert sum(n > 0 for n in per_worker) >= 2, per_worker  # both workers answered
    assert sum(per_worker) == asked
    chat = {"handler": "/chat", "method": "POST", "status": "2xx"}
    for samples in scrapes:
        assert value(samples, "docent_runs_total", exit_reason="COMPLETED",
                     model="extractive") == asked
        assert value(samples, "docent_http_request_duration_seconds_count", **chat) == asked
        assert value(samples, "docent_cache_lookups_total", cache="retrieval",
                     result="miss") == asked
