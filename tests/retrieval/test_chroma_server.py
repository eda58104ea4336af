"""Ingest and search through a Chroma server (`chroma_url`), as several API replicas would."""

from __future__ import annotations

import pytest

from docent.config import load_settings
from docent.ingest import ingest_path
from docent.retrieval.retriever import HybridRetriever
from docent.retrieval.store import open_store
from tests.chroma_server import ChromaServer
from tests.retrieval.conftest import FakeEmbedder, write_docs

pytestmark = pytest.mark.slow


@pytest.fixture
def chroma_url(tmp_path):
    server = ChromaServer(tmp_path / "server")
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def test_two_replicas_share_one_server_and_see_reingestion(tmp_path, chroma_url):
    settings = load_settings(data_dir=tmp_path / "data", chroma_url=chroma_url)
    embedder = FakeEmbedder()
    docs = write_docs(tmp_path / "docs", {"a.md": "# Alpha\n\nAlpha talks about caching.\n"})
    ingest_path(docs, settings, embedder=embedder, progress=False)
    replica = HybridRetriever(open_store(settings, embedder), embedder, settings)
    assert replica.search("caching", 3)[0].chunk.source_file == "a.md"
    assert not (tmp_path / "data" / "chroma").exists()  # nothing went to the embedded store
    write_docs(docs, {"b.md": "# Beta\n\nBeta explains XYZZY_TIMEOUT.\n"})
    report = ingest_path(docs, settings, embedder=embedder, progress=False)
    assert report.added == 1 and report.unchanged == 1
    assert replica.search("XYZZY_TIMEOUT", 3)[0].chunk.source_file == "b.md"
