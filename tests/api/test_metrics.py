"""CONTRACT.md §5, `GET /metrics`: Prometheus text, and the numbers move with real requests."""

from __future__ import annotations

import time

from langchain_core.exceptions import ModelRateLimitError
from langchain_core.messages import AIMessage
from prometheus_client.parser import text_string_to_metric_families

from docent.agent.graph import build_graph
from docent.ingest import IngestReport
from docent.ingest_status import IngestStatus, publish
from docent.models.factory import NamedModel
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel, call
from tests.http import client_for


def scrape(client) -> dict[tuple[str, frozenset], float]:
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples}


def value(samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def answering():
    def step(messages):
        return AIMessage("Set it [1].") if messages[-1].type == "tool" else call("tool-call limit")
    return [step] * 20


def test_requests_runs_and_cache_lookups_are_counted(settings):
    graph = build_graph(ScriptedChatModel(steps=answering()), FakeRetriever(chunks=list(GUIDE)),
                        settings)
    body = {"message": "What is the tool-call limit?", "messages": []}
    with client_for(graph, settings, FakeRetriever(chunks=list(GUIDE))) as c:
        before = scrape(c)
        answers = [c.post("/chat", json=body).json() for _ in range(2)]
        c.post("/chat", json={"message": "   "})  # 400
        c.get("/no/such/page/12345")  # 404
        after = scrape(c)
    assert [a["metadata"]["cached"] for a in answers] == [False, True]

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    chat = {"handler": "/chat", "method": "POST"}
    assert moved("docent_http_request_duration_seconds_count", status="2xx", **chat) == 2
    assert moved("docent_http_request_duration_seconds_count", status="4xx", **chat) == 1
    assert moved("docent_http_request_duration_seconds_sum", status="2xx", **chat) > 0
    assert not any("12345" in str(labels) for _, labels in after)  # no series per path
    assert moved("docent_runs_total", exit_reason="COMPLETED", model="scripted") == 2
    # The question is searched before the model is asked, so a run is one model call: the
    # first run missed, the second found it.
    assert moved("docent_cache_lookups_total", cache="reply", result="miss") == 1
    assert moved("docent_cache_lookups_total", cache="reply", result="hit") == 1
    assert value(after, "docent_index_chunks") == len(GUIDE)


def test_provider_fallbacks_are_counted_by_the_model_that_answered(settings):
    primary = ScriptedChatModel(steps=[ModelRateLimitError("429")] * 3)
    backup = ScriptedChatModel(steps=answering())
    graph = build_graph([NamedModel("primary", primary), NamedModel("backup", backup)],
                        FakeRetriever(chunks=list(GUIDE)), settings)
    with client_for(graph, settings, FakeRetriever(chunks=list(GUIDE))) as c:
        before = value(scrape(c), "docent_provider_fallbacks_total", model="backup")
        assert c.post("/chat", json={"message": "limit?"}).json()["metadata"]["fallback_used"]
        after = scrape(c)
    assert value(after, "docent_provider_fallbacks_total", model="backup") == before + 1
    assert value(after, "docent_runs_total", exit_reason="COMPLETED", model="backup") >= 1


def test_the_last_ingestion_is_shown(settings):
    graph = build_graph(ScriptedChatModel(steps=[]), FakeRetriever(chunks=list(GUIDE)), settings)
    started = time.time()
    publish(settings, IngestStatus(started=started))
    with client_for(graph, settings, FakeRetriever(chunks=list(GUIDE))) as c:
        running = scrape(c)
        report = IngestReport(root="docs", added=3, unchanged=2, chunks_written=17,
                              total_chunks=40, seconds=1.5)
        publish(settings, IngestStatus.ended(started, report))
        done = scrape(c)
    assert value(running, "docent_ingest_running") == 1
    assert value(done, "docent_ingest_running") == 0
    assert value(done, "docent_ingest_last_success") == 1
    assert value(done, "docent_ingest_last_chunks_written") == 17
    assert value(done, "docent_ingest_last_duration_seconds") == 1.5
    assert value(done, "docent_ingest_last_files", outcome="added") == 3
    assert value(done, "docent_ingest_last_started_timestamp_seconds") == started


def test_metrics_can_be_turned_off(settings):
    off = settings.model_copy(update={"metrics_enabled": False})
    graph = build_graph(ScriptedChatModel(steps=[]), FakeRetriever(chunks=list(GUIDE)), off)
    with client_for(graph, off, FakeRetriever(chunks=list(GUIDE))) as c:
        assert c.get("/metrics").status_code == 404
