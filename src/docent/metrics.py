"""Prometheus metrics: what docent counts, and `GET /metrics` in the text format.

Counters and histograms are declared once per process (prometheus-client's default
registry) and counted where things happen: requests by prometheus-fastapi-instrumentator's
middleware (route templates as labels, so unknown paths don't make new series), runs and
fallbacks in `docent.chat`, runs cancelled for a client that left in the `/chat` endpoint,
cache lookups in the two caches, Redis failures in `docent.state.health`. Gauges that
describe shared things (chunks indexed, the last ingestion, whether Redis answers) are read
when scraped, by whichever process is scraped.

`docent serve --workers N` runs prometheus-client's multiprocess mode (it sets
`PROMETHEUS_MULTIPROC_DIR` to a fresh directory for the workers): every scrape, whichever
worker answers it, sums the counters and histograms of all workers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

# Seconds: a greeting takes milliseconds, a hosted model's answer many seconds.
_LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)

REQUEST_SECONDS = Histogram(
    "docent_http_request_duration_seconds",
    "Time from a request's arrival to the end of its response (a stream's last frame), "
    "by route template, method and status class.",
    ["handler", "method", "status"], buckets=_LATENCY_BUCKETS,
)
RUNS = Counter(
    "docent_runs_total", "Answered questions by exit reason and answering model.",
    ["exit_reason", "model"],
)
ABANDONED = Counter(
    "docent_chat_abandoned_total",
    "/chat runs cancelled because their client closed the connection before the answer.",
)
FALLBACKS = Counter(
    "docent_provider_fallbacks_total",
    "Answers given by a later provider of the chain because an earlier one failed, by the "
    "model that answered.", ["model"],
)
CACHE_LOOKUPS = Counter(
    "docent_cache_lookups_total",
    "Cache lookups by cache (reply, retrieval) and result (hit, miss).", ["cache", "result"],
)
REDIS_ERRORS = Counter(
    "docent_redis_errors_total", "Redis calls that failed, by what they were for.", ["op"],
)

CONTENT_TYPE = CONTENT_TYPE_LATEST
Row = tuple[str, str, float, dict[str, str]]  # a gauge read when scraped: name, help, value, labels


def count_lookup(cache: str, hit: bool) -> None:
    CACHE_LOOKUPS.labels(cache=cache, result="hit" if hit else "miss").inc()


def count_run(exit_reason: str, model: str, fallback_used: bool) -> None:
    RUNS.labels(exit_reason=exit_reason, model=model).inc()
    if fallback_used:
        FALLBACKS.labels(model=model).inc()


def count_abandoned() -> None:
    ABANDONED.inc()


def observe_request(info: Any) -> None:
    """The instrumentator's callback (`prometheus_fastapi_instrumentator.metrics.Info`)."""
    REQUEST_SECONDS.labels(
        handler=info.modified_handler, method=info.method, status=info.modified_status
    ).observe(info.modified_duration)


class ScrapeTime(Collector):
    """Gauges computed when scraped, from `read()`'s (name, help, value, labels) rows."""

    def __init__(self, read: Callable[[], Iterable[Row]]) -> None:
        self._read = read

    def collect(self) -> Iterator[Metric]:
        families: dict[str, GaugeMetricFamily] = {}
        for name, help_text, value, labels in self._read():
            family = families.get(name)
            if family is None:
                family = families[name] = GaugeMetricFamily(
                    name, help_text, labels=list(labels)
                )
            family.add_metric(list(labels.values()), value)
        yield from families.values()


def exposition(gauges: Iterable[Row]) -> bytes:
    """Every metric of this process (of all workers in multiprocess mode), plus `gauges`."""
    # prometheus-client's own switch: set by `docent serve --workers N` (or the operator).
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        counted = CollectorRegistry()
        multiprocess.MultiProcessCollector(counted)
    else:
        counted = REGISTRY
    rows = list(gauges)
    extra = CollectorRegistry()
    extra.register(ScrapeTime(lambda: rows))
    return generate_latest(counted) + generate_latest(extra)
