"""The Chroma store: model stamp and mismatch, chunk metadata, fingerprint, files, reset."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from docent.ingest import ingest_path
from docent.retrieval.chunking import chunk_markdown, embedding_text
from docent.retrieval.retriever import HybridRetriever
from docent.retrieval.store import EmbeddingMismatchError, open_store
from tests.retrieval.conftest import FakeEmbedder, write_docs


def _chunks(embedder, source="a.md", text="# A\n\n## One\n\nalpha beta\n\n## Two\n\ngamma\n"):
    got = chunk_markdown(text, source, count_tokens=embedder.count_tokens, min_tokens=0)
    return got, embedder.embed([embedding_text(c) for c in got])


def test_opening_with_another_embedding_model_names_both_and_says_reset(data_settings, store):
    chunks, vectors = _chunks(store.embedder)
    store.upsert(chunks, vectors, file_hash="h", source_root="/r")

    class Other(FakeEmbedder):
        name = "other-model"

    with pytest.raises(EmbeddingMismatchError) as err:
        open_store(data_settings, Other())
    message = str(err.value)
    assert "fake-bow" in message and "other-model" in message and "--reset" in message


def test_chunks_round_trip_with_their_ingestion_metadata(store):
    chunks, vectors = _chunks(store.embedder)
    store.upsert(chunks, vectors, file_hash="abc", source_root="/docs")
    assert store.count() == len(chunks)
    assert sorted(c.chunk_id for c in store.all_chunks()) == sorted(c.chunk_id for c in chunks)
    assert set(store.all_chunks()) == set(chunks)
    assert store.files("/docs") == {"a.md": "abc"}
    assert store.files("/elsewhere") == {}
    raw = store._collection.get(ids=[chunks[0].chunk_id], include=["metadatas"])["metadatas"][0]
    assert raw["file_hash"] == "abc" and raw["source_root"] == "/docs"
    assert raw["section_title"] == chunks[0].section_title


def test_query_returns_cosine_similarity_best_first(store):
    chunks, vectors = _chunks(store.embedder)
    store.upsert(chunks, vectors, file_hash="h", source_root="/r")
    found = store.query(vectors[1], 2)
    assert found[0][0] == chunks[1]
    assert found[0][1] == pytest.approx(1.0, abs=1e-4)
    assert found[0][1] >= found[1][1]
    stored = store.embeddings([chunks[0].chunk_id])[chunks[0].chunk_id]
    assert np.allclose(stored, vectors[0], atol=1e-5)


def test_fingerprint_moves_on_touch_and_is_seen_by_another_store(data_settings, store):
    before = store.fingerprint()
    other = open_store(data_settings, FakeEmbedder())
    assert other.fingerprint() == before
    after = store.touch()
    assert after != before and other.fingerprint() == after


def test_an_unchanged_store_is_not_asked_for_its_fingerprint_again(store, monkeypatch):
    # Its database files are as they were: no process wrote since, so the read is skipped,
    # for at most _FINGERPRINT_MAX_AGE seconds.
    first = store.fingerprint()
    reads: list[str] = []
    real = store.read_fingerprint
    monkeypatch.setattr(store, "read_fingerprint", lambda: reads.append("read") or real())
    assert store.fingerprint() == store.fingerprint() == first and reads == []
    monkeypatch.setattr("docent.retrieval.store._FINGERPRINT_MAX_AGE", 0.0)
    assert store.fingerprint() == first and reads == ["read"]


def test_a_store_whose_files_are_gone_reads_its_fingerprint_again(store, monkeypatch):
    store.fingerprint()
    reads: list[str] = []
    real = store.read_fingerprint
    monkeypatch.setattr(store, "read_fingerprint", lambda: reads.append("read") or real())
    monkeypatch.setattr(store, "_files", [Path(str(p) + ".moved") for p in store._files])
    store.fingerprint()
    assert reads == ["read"]


def test_delete_files_only_removes_that_file_from_that_root(store):
    a, va = _chunks(store.embedder, "a.md")
    b, vb = _chunks(store.embedder, "b.md", "# B\n\nbody of b\n")
    store.upsert(a, va, file_hash="1", source_root="/r")
    store.upsert(b, vb, file_hash="2", source_root="/r")
    store.delete_files(["a.md"], "/other")
    assert store.count() == len(a) + len(b)
    store.delete_files(["a.md"], "/r")
    assert store.files("/r") == {"b.md": "2"}


def test_reset_empties_the_collection_and_keeps_the_model_stamp(data_settings, store):
    chunks, vectors = _chunks(store.embedder)
    store.upsert(chunks, vectors, file_hash="h", source_root="/r")
    before = store.fingerprint()
    store.reset()
    assert store.count() == 0 and store.fingerprint() != before
    open_store(data_settings, FakeEmbedder())  # same model: no mismatch after reset


def test_reset_rebuilds_a_collection_made_by_another_model(tmp_path, data_settings):
    from docent.ingest import ingest_path

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nAlpha explains the alpha setting.\n")
    ingest_path(docs, data_settings, embedder=FakeEmbedder(), progress=False)

    class Other(FakeEmbedder):
        name = "other-model"

    with pytest.raises(EmbeddingMismatchError):
        ingest_path(docs, data_settings, embedder=Other(), progress=False)
    report = ingest_path(docs, data_settings, embedder=Other(), reset=True, progress=False)
    assert report.added == 1 and open_store(data_settings, Other()).count() == report.total_chunks


_INGEST_IN_ANOTHER_PROCESS = """
import sys
from docent.config import load_settings
from docent.ingest import ingest_path
from tests.retrieval.conftest import FakeEmbedder
ingest_path(sys.argv[1], load_settings(data_dir=sys.argv[2]), embedder=FakeEmbedder(),
            progress=False)
"""


def test_search_sees_what_another_process_ingested_meanwhile(tmp_path, data_settings):
    # An embedded store shares an in-memory vector index per path: without reopening it,
    # the serving process kept returning deleted chunks (and crashed on their metadata).
    docs = write_docs(tmp_path / "docs", {"a.md": "# Alpha\n\n## Old\n\nalpha walrus text\n"})
    embedder = FakeEmbedder()
    ingest_path(docs, data_settings, embedder=embedder, progress=False)
    serving = HybridRetriever(open_store(data_settings, embedder), embedder, data_settings)
    assert "walrus" in serving.search("alpha walrus", 3)[0].chunk.text

    write_docs(docs, {"a.md": "# Alpha\n\n## New\n\nalpha zebra text\n"})
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", _INGEST_IN_ANOTHER_PROCESS, str(docs), str(data_settings.data_dir)],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{root / 'src'}"},
    )
    assert done.returncode == 0, done.stderr

    hits = serving.search("alpha zebra", 3)
    assert [h.chunk.text for h in hits] and all("walrus" not in h.chunk.text for h in hits)
    assert "zebra" in hits[0].chunk.text
