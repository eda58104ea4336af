"""CONTRACT.md §5, `/health` and `/ready` when the store goes away: liveness stays up, the
readiness check and the chat report the store, and the service recovers without a restart.

Driven against a real Chroma server on 127.0.0.1 (skipped without the chroma CLI), with the
app as `docent serve` builds it (`build_runtime`, the real embedder, the extractive model).
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import threading

import pytest
from fastapi.testclient import TestClient

from docent.api import app as app_module
from docent.api.app import create_app
from docent.config import load_settings
from docent.ingest import ingest_path
from docent.runtime import Runtime
from tests.chroma_server import ChromaServer
from tests.fakes import GUIDE, FakeRetriever

QUESTION = {"message": "How do I change the tool-call limit?"}
DOC = """# Configuration

## Changing the tool-call limit

The tool-call limit caps how many searches the agent runs in one answer. Set
`DOCENT_MAX_TOOL_CALLS` to change the tool-call limit; the default is 3.
"""


@pytest.fixture
def chroma(tmp_path):
    server = ChromaServer(tmp_path / "chroma-server")
    yield server
    server.stop()


@pytest.fixture
def served(tmp_path, chroma):
    """(settings, docs folder) for docent on `chroma`, which is not started yet."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "configuration.md").write_text(DOC, encoding="utf-8")
    settings = load_settings(
        _env_file=None, data_dir=tmp_path / "data", chroma_url=chroma.url,
        llm_provider="extractive", retry_max_wait_seconds=0, rate_limit_enabled=False,
    )
    return settings, docs


def _unreachable(client: TestClient) -> None:
    assert client.get("/health").status_code == 200
    ready = client.get("/ready")
    assert ready.status_code == 503 and ready.json()["checks"]["store"] == "unreachable"
    body = client.post("/chat", json=QUESTION).json()
    assert body["metadata"]["error_code"] == "RETRIEVAL_FAILED" and body["sources"] == []
    assert body["exit_reason"] == "LLM_GENERATION_FAILURE"


def _answers(client: TestClient) -> None:
    assert client.get("/ready").status_code == 200
    body = client.post("/chat", json=QUESTION).json()
    assert body["exit_reason"] == "COMPLETED", body["response"]
    assert "DOCENT_MAX_TOOL_CALLS" in body["response"]


@pytest.mark.slow
def test_health_stays_up_when_the_store_goes_down_and_the_service_recovers(chroma, served):
    settings, docs = served
    chroma.start()
    ingest_path(docs, settings, progress=False)
    from docent.runtime import build_runtime

    with TestClient(create_app(settings, build_runtime), raise_server_exceptions=False) as c:
        _answers(c)
        chunks = c.get("/health").json()["chunks"]
        assert chunks > 0
        chroma.stop()
        health = c.get("/health")  # the last count seen: the store's state is /ready's
        assert health.status_code == 200 and health.json()["chunks"] == chunks
        _unreachable(c)
        chroma.start()
        _answers(c)


@pytest.mark.slow
def test_server_starts_while_the_store_is_down_and_serves_once_it_is_up(
    chroma, served, caplog
):
    settings, docs = served
    from docent.runtime import build_runtime

    caplog.set_level(logging.WARNING)
    with TestClient(create_app(settings, build_runtime), raise_server_exceptions=False) as c:
        started = [r for r in caplog.records if r.name == "docent.retrieval.recovering"]
        assert [r.getMessage() for r in started] == [
            "document store unreachable at start-up; retrying on each request"]
        assert started[0].exc_info is None and "Traceback" not in caplog.text
        assert c.get("/health").json()["chunks"] == 0
        _unreachable(c)
        chroma.start()
        ingest_path(docs, settings, progress=False)
        _answers(c)
        assert c.get("/health").json()["chunks"] > 0


def test_health_and_ready_answer_while_the_store_hangs(settings, monkeypatch):
    release = threading.Event()

    class Hanging(FakeRetriever):
        def count(self) -> int:
            release.wait(30)
            return super().count()

    monkeypatch.setattr(app_module, "STORE_CHECK_TIMEOUT", 0.2)
    retriever = Hanging(chunks=list(GUIDE))
    runtime = Runtime(settings=settings, graph=None, retriever=retriever,  # type: ignore[arg-type]
                      model_id="scripted")
    with TestClient(create_app(settings, lambda _s: runtime)) as client:
        try:
            health, ready = client.get("/health"), client.get("/ready")
            still_hanging = not release.is_set()
        finally:
            release.set()  # before the client closes: shutdown waits for the blocked calls
    assert still_hanging  # both answered while the store still hung
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert ready.status_code == 503 and ready.json()["checks"]["store"] == "unreachable"


@pytest.fixture
def embedded(tmp_path):
    """(settings, backup of the store) for docent on an ingested embedded store."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "configuration.md").write_text(DOC, encoding="utf-8")
    settings = load_settings(
        _env_file=None, data_dir=tmp_path / "data", llm_provider="extractive",
        retry_max_wait_seconds=0, rate_limit_enabled=False, tool_retries=1,
        retrieval_cache_size=0, llm_cache_size=0,
    )
    ingest_path(docs, settings, progress=False)
    backup = tmp_path / "backup"
    shutil.copytree(settings.store_path, backup)
    return settings, backup


@pytest.mark.slow
def test_the_embedded_store_deleted_then_restored_heals_without_a_restart(embedded):
    settings, backup = embedded
    from docent.runtime import build_runtime

    with TestClient(create_app(settings, build_runtime), raise_server_exceptions=False) as c:
        _answers(c)
        shutil.rmtree(settings.data_dir)  # the data directory goes away under the server
        _unreachable(c)
        assert not settings.store_path.exists()  # nothing was created in its place
        shutil.copytree(backup, settings.store_path)  # a backup is restored
        _answers(c)


@pytest.mark.slow
def test_the_embedded_store_heals_after_a_sqlite_error_once_it_is_valid_again(
    embedded, monkeypatch
):
    settings, backup = embedded
    from docent.retrieval.recovering import RecoveringRetriever
    from docent.runtime import build_runtime

    monkeypatch.setattr(RecoveringRetriever, "reopen_interval", 0.0)  # no waiting in a test

    database = settings.store_path / "chroma.sqlite3"
    with TestClient(create_app(settings, build_runtime), raise_server_exceptions=False) as c:
        _answers(c)
        with sqlite3.connect(database) as db:  # the store breaks in place: same file
            db.execute("ALTER TABLE collections RENAME TO collections_gone")
        _unreachable(c)  # "no such table: collections"
        shutil.copyfile(backup / "chroma.sqlite3", database)  # valid again, still in place
        _answers(c)


@pytest.mark.slow
def test_a_data_directory_replaced_under_the_server_is_served_from(embedded, tmp_path):
    """Chroma kept reading the deleted files: a store copied in their place was ignored."""
    settings, _ = embedded
    other_docs = tmp_path / "other-docs"
    other_docs.mkdir()
    (other_docs / "sessions.md").write_text(
        "# Sessions\n\n## Session expiry\n\nA session expires after thirty minutes without "
        "activity. Set `DOCENT_SESSION_TTL_SECONDS` to change the session expiry.\n",
        encoding="utf-8")
    other = settings.model_copy(update={"data_dir": tmp_path / "other-data"})
    ingest_path(other_docs, other, progress=False)
    from docent.runtime import build_runtime

    question = {"message": "How do I change the session expiry?"}
    with TestClient(create_app(settings, build_runtime), raise_server_exceptions=False) as c:
        _answers(c)
        shutil.rmtree(settings.store_path)
        shutil.copytree(other.store_path, settings.store_path)
        body = c.post("/chat", json=question).json()
    assert body["exit_reason"] == "COMPLETED", body["response"]
    assert "DOCENT_SESSION_TTL_SECONDS" in body["response"]


@pytest.mark.parametrize(("chunks", "warned"), [(list(GUIDE), False), ([], True)])
def test_an_empty_index_is_warned_about_at_start_up(settings, caplog, chunks, warned):
    """An operator who forgot `docent ingest` learns it from the log, not from the answers."""
    runtime = Runtime(settings=settings, graph=None, retriever=FakeRetriever(chunks=chunks),  # type: ignore[arg-type]
                      model_id="scripted")
    with caplog.at_level(logging.WARNING, logger="docent.api.app"):
        with TestClient(create_app(settings, lambda _s: runtime)):
            pass
    empty = [r for r in caplog.records if "the index is empty" in r.getMessage()]
    assert len(empty) == warned
